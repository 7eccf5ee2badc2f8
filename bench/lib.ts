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
