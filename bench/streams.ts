// Incremental processing in Node (memory storage, so that only the library's own work is timed): the cost
// of one append_scan run when the source table already has 10, 1,000 and 10,000 snapshots the consumer
// has consumed (it must stay flat), and the exactly-once commit (a node's appends with its stream
// progress, in one catalog commit) against a plain append of the same rows.
import type * as A from "apache-arrow";
import { z } from "zod";
import * as ava from "../src/index.js";
import { median, printTable, type Row, ratio, repeat } from "./lib.js";

const RUNS = 9;

const Docs = ava.defineNamespace({
  name: "bench_streams",
  tables: {
    source: ava.table({ schema: z.object({ id: z.int(), text: z.string() }) }),
    sink: ava.table({ schema: z.object({ id: z.int(), text: z.string() }) }),
  },
});

const copy = ava.step(
  async function copy_rows(inj: { rows: A.Table; sink: ava.Table }) {
    const rows = inj.rows.toArray().map((r) => ({ id: Number(r.id), text: String(r.text) }));
    if (rows.length > 0) await inj.sink.append(rows);
    return rows.length;
  },
  {
    inject: {
      rows: ava.stream(Docs.tables.source, { mode: "append_scan", key: "copy" }),
      sink: Docs.tables.sink,
    },
  },
);
const consumer = ava.workflow({ name: "bench-consumer" }, () => copy());

const hundred = (from: number) =>
  Array.from({ length: 100 }, (_, i) => ({ id: from + i, text: `row ${from + i}` }));

async function consumerRunWithHistory(earlier: number): Promise<number[]> {
  const storage = ava.memoryStorage();
  const ns = await Docs.open({ storage });
  await ns.push();
  for (let i = 0; i < earlier; i++) await ns.source.append([{ id: i, text: "earlier" }]);
  // The consumer has consumed every earlier snapshot (set directly: the bench times the next run only).
  await storage.catalog.commit([
    {
      op: "streamProgress",
      namespace: "bench_streams",
      table: "source",
      key: "copy",
      expectedPosition: 0,
      consumedThrough: earlier,
    },
  ]);
  let next = earlier;
  return repeat(
    RUNS,
    async () => {
      if ((await consumer.run({ storage }).result()).value !== 100)
        throw new Error("the run missed its snapshot");
    },
    async () => {
      await ns.source.append(hundred(next));
      next += 100;
    },
  );
}

export async function benchStreams(): Promise<void> {
  const rows: Row[] = [];
  await consumerRunWithHistory(10); // warm: the first measured size would pay for JIT and wasm start-up
  let first: number | undefined;
  for (const earlier of [10, 1_000, 10_000]) {
    const time = median(await consumerRunWithHistory(earlier));
    first ??= time;
    rows.push({
      case: `one append_scan run (100 rows) after ${earlier.toLocaleString("en")} consumed snapshots`,
      median_ms: time,
      ratio: ratio(time, first),
      note: earlier === 10 ? "" : "target ≤ 1.5× the 10-snapshot run",
    });
  }

  // The exactly-once commit against a plain append of the same 100 rows.
  const storage = ava.memoryStorage();
  const ns = await Docs.open({ storage });
  await ns.push();
  let id = 0;
  const nextHundred = () => {
    id += 100;
    return hundred(id);
  };
  const plain = await repeat(RUNS * 3, () => ns.sink.append(nextHundred()));
  const node = await repeat(
    RUNS * 3,
    () => consumer.run({ storage }).result(),
    () => ns.source.append(nextHundred()),
  );
  rows.push(
    { case: "plain append of 100 rows (one commit)", median_ms: median(plain), ratio: "1.00×" },
    {
      case: "a consumer run: stream the snapshot, append 100 rows, one commit with the progress",
      median_ms: median(node),
      ratio: ratio(median(node), median(plain)),
      note: "includes reading the snapshot and the run's start and end records",
    },
  );
  printTable(`Incremental processing in Node, memory storage (medians of ${RUNS}+)`, rows);
}
