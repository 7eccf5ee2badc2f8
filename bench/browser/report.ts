// What a bench page leaves for the runner: its timings, or the error that stopped it.
declare global {
  interface Window {
    __bench?: { ok: boolean; timings?: Record<string, number[]>; error?: string };
  }
}

export async function report(run: () => Promise<Record<string, number[]>>): Promise<void> {
  try {
    window.__bench = { ok: true, timings: await run() };
  } catch (err) {
    window.__bench = { ok: false, error: String((err as Error).stack ?? err) };
  }
}

export async function timed(runs: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}
