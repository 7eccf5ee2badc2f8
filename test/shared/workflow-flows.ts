// Workflow modules shared by the workflow tests: the same module runs inline and — imported by URL — in
// Web Workers and worker threads, which find each node's function by its slug.
import * as A from "apache-arrow";
import { z } from "zod";
import * as ava from "../../src/index.js";

export const inc = ava.step(async function inc(x: number) {
  return x + 1;
});
export const add = ava.step(async (a: number, b: number) => a + b, { slug: "add" });

/** a = inc(1); add(a, inc(a)) = 2 + 3 */
export const math = ava.workflow({ name: "math" }, () => {
  const a = inc(1);
  return add(a, inc(a));
});

const double = ava.step(async function double(x: number) {
  return x * 2;
});
const sum4 = ava.step(async function sum4(a: number, b: number, c: number, d: number) {
  return a + b + c + d;
});
/** A diamond: top feeds left and right, which both feed bottom. */
export const diamond = ava.workflow({ name: "diamond" }, () => {
  const top = inc(10);
  const left = double(top);
  const right = inc(top);
  return { bottom: sum4(left, right, top, 1), left, right };
});

const sleep = ava.step(
  async function sleep(ms: number, ctx: { ctx: ava.RunContext }) {
    ctx.ctx.signal.throwIfAborted();
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(resolve, ms);
      ctx.ctx.signal.addEventListener("abort", () => {
        clearTimeout(t);
        reject(ctx.ctx.signal.reason);
      });
    });
    return ms;
  },
  { inject: { ctx: ava.runContext() } },
);

/** Two independent sleeps: with room for both they finish in about one sleep. */
export const twoSleeps = ava.workflow({ name: "two-sleeps" }, () => [sleep(300), sleep(300)]);
/** Long enough that a cancel lands inside the first sleep however slowly a worker starts. */
export const longSleeps = ava.workflow({ name: "long-sleeps" }, () => [sleep(5000), sleep(5000)]);

const boom = ava.step(async function boom(_x: number): Promise<number> {
  throw Object.assign(new ava.AvaError("INVALID_ARGUMENT", "boom went the node"), {});
});
/** `boom` fails; `after_boom` depends on it; `other` is independent and finishes. */
export const failing = ava.workflow({ name: "failing" }, () => {
  const b = boom(1);
  const afterBoom = ava.step(async function after_boom(x: number) {
    return x;
  })(b);
  const other = inc(5);
  return { afterBoom, other };
});

const maybe = ava.step(async function maybe(x: number) {
  return x > 0 ? x : ava.skip("nothing to do");
});
const seen = ava.step(async function seen(x: unknown) {
  return ava.isSkip(x) ? `skipped: ${x.reason}` : `value ${x}`;
});
export const skipping = ava.workflow({ name: "skipping" }, () => seen(maybe(0)));

const split = ava.step(
  async function split(x: number) {
    return [x, x * 10];
  },
  { numReturns: 2 },
);
export const multi = ava.workflow({ name: "multi" }, () => {
  const [a, b] = split(3);
  return add(a!, b!);
});

/** Arrow tables crossing between nodes (and Workers). */
const makeTable = ava.step(async function make_table(n: number) {
  return A.tableFromArrays({ x: Float64Array.from({ length: n }, (_, i) => i) });
});
const sumTable = ava.step(async function sum_table(t: A.Table) {
  let s = 0;
  for (const v of t.getChild("x")!.toArray() as Float64Array) s += v;
  return { rows: t.numRows, sum: s, isTable: t instanceof A.Table };
});
export const arrowFlow = ava.workflow({ name: "arrow" }, () => sumTable(makeTable(1000)));

/** Tables injected into a node: rows appended inside a run carry its provenance. */
export const Docs = ava.defineNamespace({
  name: "wfdocs",
  tables: {
    // Data files (not inlined): the streams tests count the file reads a stream makes.
    notes: ava.table({ schema: z.object({ id: z.int(), text: z.string() }), inline: false }),
    plain: ava.table({ schema: z.object({ k: z.string() }), rowLineage: false }),
    more: ava.table({ schema: z.object({ v: z.int() }) }),
  },
});
const writeNotes = ava.step(
  async function write_notes(
    n: number,
    inj: { notes: ava.Table; ctx: ava.RunContext; input: { prefix: string } },
  ) {
    const rows = Array.from({ length: n }, (_, i) => ({ id: i, text: `${inj.input.prefix}${i}` }));
    const res = await inj.notes.append(rows);
    return { appended: res.rowCount, slug: inj.ctx.nodeSlug, runId: inj.ctx.runId };
  },
  { inject: { notes: Docs.tables.notes, ctx: ava.runContext(), input: ava.runInput() } },
);
export const notesFlow = ava.workflow({ name: "notes" }, () => writeNotes(3));

/** A 200-node random DAG: node i adds the values of a few earlier nodes (and its own index). */
export const RANDOM_NODES = 200;
const combine = ava.step(async function combine(i: number, ...ups: number[]) {
  return ups.reduce((a, b) => (a + b) % 1_000_003, i);
});
export function randomEdges(seed: number): number[][] {
  let s = seed;
  const rnd = () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
  return Array.from({ length: RANDOM_NODES }, (_, i) =>
    i === 0 ? [] : Array.from({ length: Math.floor(rnd() * 4) }, () => Math.floor(rnd() * i)),
  );
}
const EDGES = randomEdges(42);
export const randomDag = ava.workflow({ name: "random-dag" }, () => {
  const futures: ava.NodeFuture<number>[] = [];
  for (let i = 0; i < RANDOM_NODES; i++) futures.push(combine(i, ...EDGES[i]!.map((j) => futures[j]!)));
  return futures;
});
/** The reference: the same sums by a plain topological evaluation. */
export function randomDagReference(): number[] {
  const out: number[] = [];
  for (let i = 0; i < RANDOM_NODES; i++) out.push(EDGES[i]!.reduce((a, j) => (a + out[j]!) % 1_000_003, i));
  return out;
}

/** A node that kills the worker running it (an uncaught error outside the node's promise). */
const crash = ava.step(async function crash(ms: number) {
  setTimeout(() => {
    throw new Error("the worker fell over");
  }, 0);
  await new Promise((resolve) => setTimeout(resolve, ms));
  return "survived";
});
export const crashing = ava.workflow({ name: "crashing" }, () => ({ crashed: crash(2000), other: inc(1) }));

/** An AppendResult handed from one node to the next (across workers), its models intact. */
const appendOne = ava.step(
  async function append_one(text: string, inj: { notes: ava.Table }) {
    return inj.notes.append([{ id: 7, text }]);
  },
  { inject: { notes: Docs.tables.notes } },
);
const readBack = ava.step(async function read_back(res: ava.AppendResult<{ id: number; text: string }>) {
  return {
    model: res.one(),
    models: res.toModels(),
    rows: res.rowCount,
    isResult: res instanceof ava.AppendResult,
  };
});
export const appendFlow = ava.workflow({ name: "append-result" }, () => readBack(appendOne("hello")));

/** Streams: `produce` appends rows that `consume` reads back; `other_writer` is not upstream of it. */
const produce = ava.step(
  async function produce(n: number, inj: { notes: ava.Table }) {
    await inj.notes.append(Array.from({ length: n }, (_, i) => ({ id: i, text: `p${i}` })));
    return n;
  },
  { inject: { notes: Docs.tables.notes } },
);
const otherWriter = ava.step(
  async function other_writer(inj: { notes: ava.Table }) {
    await inj.notes.append([{ id: 99, text: "not upstream" }]);
  },
  { inject: { notes: Docs.tables.notes } },
);
const consume = ava.step(
  async function consume(_n: number, inj: { rows: A.Table; models: { id: number; text: string }[] }) {
    return {
      rows: inj.rows.numRows,
      texts: inj.models.map((m) => m.text).sort(),
      slugs: [...new Set(inj.rows.getChild("_ava_node_slug")!.toArray() as string[])],
    };
  },
  { inject: { rows: ava.stream(Docs.tables.notes), models: ava.modelStream.all(Docs.tables.notes) } },
);
export const streamFlow = ava.workflow({ name: "stream" }, () => {
  const p = produce(3);
  otherWriter();
  return consume(p);
});

/** modelStream.one over three rows: a cardinality error naming workflow, run and node. */
const onlyOne = ava.step(
  async function only_one(_n: number, inj: { note: unknown }) {
    return inj.note;
  },
  { inject: { note: ava.modelStream.one(Docs.tables.notes) } },
);
export const tooMany = ava.workflow({ name: "too-many" }, () => onlyOne(produce(3)));

/** An AppendResult from upstream is the stream, with no storage read. */
const appendTwo = ava.step(
  async function append_two(inj: { notes: ava.Table }) {
    return inj.notes.append([
      { id: 1, text: "a" },
      { id: 2, text: "b" },
    ]);
  },
  { inject: { notes: Docs.tables.notes } },
);
const viaResult = ava.step(
  async function via_result(res: ava.AppendResult<unknown>, inj: { rows: A.Table; one: unknown }) {
    return { rows: inj.rows.numRows, same: inj.rows === res.data, snapshot: res.snapshotId };
  },
  { inject: { rows: ava.stream(Docs.tables.notes), one: ava.modelStream.all(Docs.tables.notes) } },
);
export const passthrough = ava.workflow({ name: "passthrough" }, () => viaResult(appendTwo()));

/** A stream over a table without row lineage is refused when the node runs. */
const noLineage = ava.step(
  async function no_lineage(inj: { rows: A.Table }) {
    return inj.rows.numRows;
  },
  { inject: { rows: ava.stream(Docs.tables.plain) } },
);
export const lineageless = ava.workflow({ name: "lineageless" }, () => noLineage());

/** A node that appends twice and then throws: none of its rows may land. */
const appendThenThrow = ava.step(
  async function append_then_throw(inj: { notes: ava.Table }) {
    await inj.notes.append([{ id: 1, text: "never" }]);
    await inj.notes.append([{ id: 2, text: "never either" }]);
    throw new Error("failed after appending");
  },
  { inject: { notes: Docs.tables.notes } },
);
export const failingWriter = ava.workflow({ name: "failing-writer" }, () => appendThenThrow());

/** A node appending to two tables: both snapshots land in one catalog commit. */
const twoTables = ava.step(
  async function two_tables(inj: { notes: ava.Table; more: ava.Table }) {
    const a = await inj.notes.append([{ id: 1, text: "x" }]);
    const b = await inj.more.append([{ v: 1 }]);
    return { a: a.snapshot, b: b.snapshot };
  },
  { inject: { notes: Docs.tables.notes, more: Docs.tables.more } },
);
export const bothTables = ava.workflow({ name: "both-tables" }, () => twoTables());

// The append_scan flows, so that worker pools built on this module find them too.
export { Library, racing } from "./append-scan-flows.js";

/** Lineage: `relay` consumes produce's rows and appends to `more`; its rows name produce's run. */
const relay = ava.step(
  async function relay(_n: number, inj: { rows: A.Table; more: ava.Table }) {
    await inj.more.append([{ v: inj.rows.numRows }]);
  },
  { inject: { rows: ava.stream(Docs.tables.notes), more: Docs.tables.more } },
);
export const relayFlow = ava.workflow({ name: "relay" }, () => relay(produce(2)));
/** Lineage through plain values (the original's LineagedResult): only `sink` appends, yet its rows name every node. */
const loadValue = ava.step("load", async () => 2);
const processValue = ava.step("process", async (x: number) => x * 10);
const sinkValue = ava.step(
  "sink",
  async (x: number, inj: { more: ava.Table }) => (await inj.more.append({ v: x })).rowCount,
  { inject: { more: Docs.tables.more } },
);
export const valueLineage = ava.workflow({ name: "value-lineage" }, () =>
  sinkValue(processValue(loadValue())),
);

/** A node that logs (ava.logger()) and tells which executor ran it. */
const talk = ava.step(
  "talk",
  async (n: number, inj: { log: ava.Logger; debug: ava.Logger; ctx: ava.RunContext }) => {
    inj.log.debug("not kept: below the logger's level");
    inj.log.info("starting", { n, big: 2n ** 70n });
    for (let i = 0; i < n; i++) inj.log.warn(`line ${i}`);
    inj.debug.debug("kept: this logger's level is debug");
    return inj.ctx.executor;
  },
  { inject: { log: ava.logger(), debug: ava.logger({ level: "debug" }), ctx: ava.runContext() } },
);
const failLoudly = ava.step(
  "fail_loudly",
  async (_: string, inj: { log: ava.Logger }) => {
    inj.log.error("about to fail");
    throw new Error("failed after logging");
  },
  { inject: { log: ava.logger() } },
);
export const logging = ava.workflow({ name: "logging" }, () => talk(2));
export const loggingFailure = ava.workflow({ name: "logging-failure" }, () => failLoudly(talk(0)));
export { Pipeline, pipeline } from "./rerun-flows.js";
