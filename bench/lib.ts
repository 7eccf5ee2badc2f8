// Small benchmark helpers: repeated timings, medians, and a printed table of rows/s and ratios.
// These machines are shared and noisy: read the ratios, not single timings.

export async function time(fn: () => Promise<unknown> | unknown): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** Runs `fn` `runs` times (after `before` each time, untimed) and returns the timings in ms. */
export async function repeat(
  runs: number,
  fn: (run: number) => Promise<unknown> | unknown,
  before?: (run: number) => Promise<unknown> | unknown,
): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    await before?.(i);
    out.push(await time(() => fn(i)));
  }
  return out;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

export interface Row {
  case: string;
  median_ms: number;
  rate?: string;
  ratio?: string;
  note?: string;
}

export function rate(count: number, ms: number, unit: string): string {
  const perSecond = (count / ms) * 1000;
  return perSecond >= 1e6
    ? `${(perSecond / 1e6).toFixed(2)} M ${unit}/s`
    : `${(perSecond / 1e3).toFixed(1)} k ${unit}/s`;
}

export function ratio(ours: number, floor: number): string {
  return `${(ours / floor).toFixed(2)}×`;
}

export function printTable(title: string, rows: Row[]): void {
  console.log(`\n## ${title}\n`);
  console.log("| case | median ms | rate | ratio | note |");
  console.log("|---|---:|---:|---:|---|");
  for (const r of rows)
    console.log(
      `| ${r.case} | ${r.median_ms.toFixed(2)} | ${r.rate ?? ""} | ${r.ratio ?? ""} | ${r.note ?? ""} |`,
    );
}

/**
 * Where a run's wall time goes: latency percentiles, and the share of the whole run's wall time spent in
 * commits slower than 2 / 5 / 10 ms (a rate by wall time is set by its tail, which a median hides).
 */
export function latencyProfile(latencies: readonly number[], wallMs: number): string {
  const share = (ms: number) =>
    `${Math.round((latencies.filter((x) => x > ms).reduce((a, b) => a + b, 0) / wallMs) * 100)}%`;
  const p = (q: number) => percentile(latencies, q).toFixed(2);
  return (
    `p50 ${p(50)} / p90 ${p(90)} / p99 ${p(99)} / max ${Math.max(...latencies).toFixed(1)} ms; ` +
    `wall time in commits > 2 ms ${share(2)}, > 5 ms ${share(5)}, > 10 ms ${share(10)}`
  );
}

/**
 * Counts calls of the named methods of `proto` while installed (a bench's view of what commits cost:
 * checkpoints written, cleanups, entries staged), and when each ran (start, end ms; an async method ends
 * when its promise settles). Returns the counts, the spans and a function that uninstalls.
 */
export function countCalls(
  proto: object,
  names: readonly string[],
): { counts: Record<string, number>; spans: Record<string, [number, number][]>; restore(): void } {
  const counts: Record<string, number> = {};
  const spans: Record<string, [number, number][]> = {};
  const target = proto as Record<string, (...args: unknown[]) => unknown>;
  const originals = names.map((name) => [name, target[name]!] as const);
  for (const [name, original] of originals) {
    counts[name] = 0;
    spans[name] = [];
    target[name] = function (this: unknown, ...args: unknown[]) {
      counts[name]!++;
      const span: [number, number] = [performance.now(), 0];
      spans[name]!.push(span);
      const end = () => {
        span[1] = performance.now();
      };
      const out = original.apply(this, args);
      if (out instanceof Promise) out.then(end, end);
      else end();
      return out;
    };
  }
  const restore = () => {
    for (const [name, original] of originals) target[name] = original;
  };
  return { counts, spans, restore };
}

/**
 * Which background work the slow commits (over `overMs`) ran beside: for each kind of span, how many slow
 * commits overlapped one and their share of the wall time (a commit can overlap several kinds; "none"
 * overlapped no span).
 */
export function slowCommitsBeside(
  commits: readonly [start: number, ms: number][],
  spans: Record<string, readonly [number, number][]>,
  wallMs: number,
  overMs = 10,
): string {
  const out: string[] = [];
  const slow = commits.filter(([, ms]) => ms > overMs);
  const overlapping = (kind: string) =>
    slow.filter(([t, ms]) => spans[kind]!.some(([a, b]) => a < t + ms && b > t));
  const kinds = Object.keys(spans).filter((k) => spans[k]!.length > 0);
  const none = slow.filter((c) => !kinds.some((k) => overlapping(k).includes(c)));
  for (const [kind, list] of [...kinds.map((k) => [k, overlapping(k)] as const), ["none", none] as const]) {
    const ms = list.reduce((n, [, m]) => n + m, 0);
    out.push(`${kind} ${list.length} (${Math.round((ms / wallMs) * 100)}%)`);
  }
  return `commits > ${overMs} ms beside: ${out.join(", ")}`;
}
