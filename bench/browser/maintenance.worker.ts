// Runs in a module Worker in headless Chromium: 1,000 appends of 10 rows on browserStorage, first with a
// data file each (OPFS sync access handle + IndexedDB), then inlined into the catalog entry, one after
// another; then inlined by 8 and 32 concurrent appenders (group commit). Posts ms per commit, and for the
// concurrent cases the wall time of all 1,000 as `<case>_wall`.
import * as ava from "../../src/index.js";
import { makeBatch, schema } from "../data.js";

const COMMITS = 1_000;

async function commits(inline: boolean, concurrency = 1): Promise<{ latencies: number[]; wallMs: number }> {
  const Bench = ava.defineNamespace({ name: "bench", tables: { points: ava.table({ schema, inline }) } });
  const ns = await Bench.open({
    storage: ava.browserStorage({ name: `m${inline}${concurrency}${Date.now()}`, persist: false }),
  });
  await ns.push();
  const rows = makeBatch(0, 10);
  const latencies: number[] = [];
  let started = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < COMMITS) {
        started++;
        const t = performance.now();
        await ns.points.append(rows);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { latencies, wallMs: performance.now() - t0 };
}

self.onmessage = async () => {
  try {
    const files = (await commits(false)).latencies;
    const one = await commits(true);
    const timings: Record<string, number[]> = { files, inline: one.latencies, inline_wall: [one.wallMs] };
    for (const c of [8, 32]) {
      const { latencies, wallMs } = await commits(true, c);
      timings[`inline_c${c}`] = latencies;
      timings[`inline_c${c}_wall`] = [wallMs];
    }
    postMessage({ ok: true, timings });
  } catch (err) {
    postMessage({ ok: false, error: String((err as Error).stack ?? err) });
  }
};
