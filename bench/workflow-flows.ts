// The workflows of the scheduling bench, in a module of their own so that worker pools import them by URL.
import * as A from "apache-arrow";
import * as ava from "../src/index.js";

export const NODES = 1000;

export async function noopFn(x: number): Promise<number> {
  return x + 1;
}
const noop = ava.step(noopFn, { slug: "noop" });

/** 1,000 no-op nodes, each waiting for the one before. */
export const chain = ava.workflow({ name: "bench-chain" }, () => {
  let f = noop(0);
  for (let i = 1; i < NODES; i++) f = noop(f);
  return f;
});

/** One source and 999 no-op nodes that all wait for it. */
export const fanOut = ava.workflow({ name: "bench-fan-out" }, () => {
  const source = noop(0);
  for (let i = 1; i < NODES; i++) noop(source);
  return source;
});

const makeTable = ava.step(async function make_table(rows: number) {
  return A.tableFromArrays({
    ts: BigInt64Array.from({ length: rows }, (_, i) => BigInt(i)),
    value: Float64Array.from({ length: rows }, (_, i) => i),
  });
});
const countRows = ava.step(async function count_rows(t: A.Table) {
  return t.numRows;
});

/** An Arrow table made in one worker node and handed to the next. */
export const handoff1k = ava.workflow({ name: "bench-handoff-1k" }, () => countRows(makeTable(1_000)));
export const handoff1m = ava.workflow({ name: "bench-handoff-1m" }, () => countRows(makeTable(1_000_000)));

/**
 * The hand-over of a table as the scheduler times the count_rows node: the table goes from the main thread
 * into its worker and is counted there (making it is the make_table node's time, not counted).
 */
export async function handoverTimes(
  flow: typeof handoff1k,
  executor: ava.Executor,
  runs: number,
): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++)
    out.push((await flow.run({ executor }).result()).nodes.count_rows!.durationMs!);
  return out;
}
