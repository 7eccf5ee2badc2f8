// Runs in a module Worker in headless Chromium: 1,000 appends of 10 rows on browserStorage, first with a
// data file each (OPFS sync access handle + IndexedDB), then inlined into the catalog entry, one after
// another; then inlined by 8 and 32 concurrent appenders (group commit). Posts ms per commit, and for the
// concurrent cases the wall time of all 1,000 as `<case>_wall`.
import * as ava from "../../src/index.js";
import { IndexedDbLog } from "../../src/storage/browser/indexeddb-log.js";
import { LogCatalog } from "../../src/storage/catalog/log-catalog.js";
import { makeBatch, schema } from "../data.js";
import { countCalls } from "../lib.js";

const COMMITS = 1_000;

/** IndexedDB transactions begun, by mode (what each commit and its background work cost the database). */
function countTransactions(): { counts: Record<string, number>; restore(): void } {
  const proto = IDBDatabase.prototype;
  const original = proto.transaction;
  const counts: Record<string, number> = { idb_readonly: 0, idb_readwrite: 0 };
  proto.transaction = function (this: IDBDatabase, ...args: Parameters<typeof original>) {
    counts[`idb_${args[1] ?? "readonly"}`]!++;
    return original.apply(this, args);
  } as typeof original;
  return { counts, restore: () => (proto.transaction = original) };
}

async function commits(
  inline: boolean,
  concurrency = 1,
): Promise<{ latencies: number[]; wallMs: number; counts: Record<string, number> }> {
  const Bench = ava.defineNamespace({ name: "bench", tables: { points: ava.table({ schema, inline }) } });
  const ns = await Bench.open({
    storage: ava.browserStorage({ name: `m${inline}${concurrency}${Date.now()}`, persist: false }),
  });
  await ns.push();
  const rows = makeBatch(0, 10);
  const latencies: number[] = [];
  const counters = [
    countTransactions(),
    countCalls(IndexedDbLog.prototype, ["stage", "writeCheckpoint", "removeBefore", "removeCheckpoints"]),
    countCalls(LogCatalog.prototype, ["cleanup"]),
  ];
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
  const wallMs = performance.now() - t0;
  for (const c of counters) c.restore();
  const flushes = "inlineFlush" in ns.points ? ns.points.inlineFlush.runs : 0;
  return { latencies, wallMs, counts: Object.assign({ flushes }, ...counters.map((c) => c.counts)) };
}

self.onmessage = async () => {
  try {
    const files = (await commits(false)).latencies;
    const one = await commits(true);
    const timings: Record<string, number[]> = { files, inline: one.latencies, inline_wall: [one.wallMs] };
    for (const [k, v] of Object.entries(one.counts)) timings[`inline_count_${k}`] = [v];
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
