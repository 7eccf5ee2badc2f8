// Behaviour the original Avalanche has (its test suite, ported): strict models, passthrough on tables
// without row lineage, node ids, rerun specs, RunHandle's queries, run hooks, RunContext's rerun and
// executor, typed run input, and consuming a stream outside workflows.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as ava from "../../src/index.js";
import { expectAvaError } from "./fixtures.js";

const Strict = ava.defineNamespace({
  name: "strict",
  tables: {
    items: ava.table({ schema: z.strictObject({ id: z.string(), n: z.int() }) }),
    plain: ava.table({ schema: z.object({ id: z.string() }), rowLineage: false }),
    totals: ava.table({ schema: z.object({ total: z.int() }) }),
  },
});

async function open() {
  const storage = ava.memoryStorage();
  const ns = await Strict.open({ storage });
  await ns.push();
  return { storage, ns };
}

describe("strict models (the original's extra='forbid')", () => {
  it("readModels, AppendResult.one() and modelStream validate the user's columns only", async () => {
    const { storage, ns } = await open();
    const res = await ns.items.append({ id: "a", n: 1 });
    expect(res.one()).toEqual({ id: "a", n: 1 });
    expect(await ns.items.readModels()).toEqual([{ id: "a", n: 1 }]);
    const make = ava.step(
      async (_: undefined, { items }) => (await items.append({ id: "b", n: 2 })).rowCount,
      {
        slug: "make",
        inject: { items: Strict.tables.items },
      },
    );
    const take = ava.step(async (_: unknown, { item }) => item, {
      slug: "take",
      inject: { item: ava.modelStream.one(Strict.tables.items) },
    });
    const flow = ava.workflow({ name: "strict_models" }, () => take(make(undefined)));
    expect((await flow.run({ storage }).result()).value).toEqual({ id: "b", n: 2 });
    // an unknown key in the user's own data is still refused
    await expectAvaError(ns.items.append({ id: "c", n: 3, extra: 1 } as never), "SCHEMA_MISMATCH");
  });
});

describe("run-scoped passthrough", () => {
  it("hands an upstream AppendResult to ava.stream on a rowLineage: false table", async () => {
    const { storage } = await open();
    const write = ava.step(async (_: undefined, { plain }) => plain.append([{ id: "x" }, { id: "y" }]), {
      slug: "write",
      inject: { plain: Strict.tables.plain },
    });
    const read = ava.step(async (_: unknown, { rows }) => rows.numRows, {
      slug: "read",
      inject: { rows: ava.stream(Strict.tables.plain) },
    });
    const flow = ava.workflow({ name: "passthrough" }, () => read(write(undefined)));
    expect((await flow.run({ storage }).result()).value).toBe(2);
    // without the AppendResult the stream still cannot find rows on such a table
    const alone = ava.workflow({ name: "no_passthrough" }, () => read(1));
    await expectAvaError(alone.run({ storage }).result(), "RUN_FAILED", /rowLineage: false/);
  });
});

describe("node ids and rerun specs", () => {
  it("numbers node ids per function, from 1", () => {
    const load = ava.step(async function load() {
      return 1;
    });
    const proc = ava.step(async function proc(x: number) {
      return x;
    });
    const flow = ava.workflow({ name: "ids" }, () => [proc(load()), proc(load())]);
    expect(flow.nodes.map((n) => [n.slug, n.nodeId])).toEqual([
      ["load", "load_1"],
      ["load_2", "load_2"],
      ["proc", "proc_1"],
      ["proc_2", "proc_2"],
    ]);
  });

  it("refuses unknown keys in ava.rerun", () => {
    expect(() => ava.rerun({ runId: "r", start: ["a"], startAt: "b" } as never)).toThrow(
      /unknown option "startAt"/,
    );
    expect(() => ava.rerun(null as never)).toThrow(/takes \{ runId, start, mode\? \}/);
  });
});

describe("RunHandle", () => {
  it("answers done(), running(), cancelled(), error() and result({ timeoutMs })", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const wait = ava.step(async () => gate.then(() => 7), { slug: "wait" });
    const flow = ava.workflow({ name: "handle" }, () => wait());
    const run = flow.run();
    expect(run.done()).toBe(false);
    expect(run.running()).toBe(true);
    await expectAvaError(run.result({ timeoutMs: 20 }), "TIMEOUT", /did not finish within 20 ms/);
    release();
    expect((await run.result({ timeoutMs: 5_000 })).value).toBe(7);
    expect(await run.error()).toBeUndefined();
    expect([run.done(), run.running(), run.cancelled()]).toEqual([true, false, false]);
    await expectAvaError(async () => run.result({ timeoutMs: -1 }), "INVALID_ARGUMENT");

    const stuck = ava.step(
      async (_: undefined, { ctx }) =>
        new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))),
      { slug: "stuck", inject: { ctx: ava.runContext() } },
    );
    const cancelled = ava.workflow({ name: "cancelled" }, () => stuck(undefined)).run();
    cancelled.cancel();
    expect(cancelled.cancelled()).toBe(true);
    expect((await cancelled.error())?.code).toBe("RUN_CANCELLED");
  });

  it("calls onNodeStart, onNodeSuccess and onNodeFailure; a throwing hook changes nothing", async () => {
    const seen: string[] = [];
    const ok = ava.step(async () => 1, { slug: "ok" });
    const bad = ava.step(
      async (_: number) => {
        throw new Error("boom");
      },
      { slug: "bad" },
    );
    const flow = ava.workflow({ name: "hooks" }, () => bad(ok()));
    const run = flow.run({
      hooks: {
        onNodeStart: (n) => {
          seen.push(`start ${n.slug} ${n.nodeId}`);
          throw new Error("a hook's bug");
        },
        onNodeSuccess: (n) => seen.push(`success ${n.slug} ${n.status} ${n.durationMs >= 0}`),
        onNodeFailure: (n) => seen.push(`failure ${n.slug} ${n.status} ${n.error.message}`),
      },
    });
    await expectAvaError(run.result(), "RUN_FAILED", /bad/);
    expect(seen).toEqual([
      "start ok ok_1",
      "success ok success true",
      "start bad bad_1",
      "failure bad failed boom",
    ]);
  });
});

describe("RunContext", () => {
  it("tells the executor's kind and, in a rerun, what was rerun", async () => {
    const { storage } = await open();
    const probe = ava.step(
      async (_: undefined, { ctx }) => ({ executor: ctx.executor, rerun: ctx.rerun ?? null }),
      {
        slug: "probe",
        inject: { ctx: ava.runContext() },
      },
    );
    const flow = ava.workflow({ name: "ctx" }, () => probe(undefined));
    expect((await flow.run({ storage, runId: "c1" }).result()).value).toEqual({
      executor: "inline",
      rerun: null,
    });
    const again = await flow
      .run({ storage, rerun: ava.rerun({ runId: "c1", start: ["probe"], mode: "lazy" }) })
      .result();
    expect(again.value).toEqual({
      executor: "inline",
      rerun: { runId: "c1", start: ["probe"], mode: "lazy" },
    });
  });
});

describe("typed run input", () => {
  const Input = z.object({ n: z.int().min(1), label: z.string().default("none") });
  const echo = ava.step(async (input: z.output<typeof Input>, { raw }) => ({ input, raw }), {
    slug: "echo",
    inject: { raw: ava.runInput() },
  });
  const flow = ava.workflow({ name: "typed", input: Input }, (input) => echo(input));

  it("validates and defaults the input at run(), and hands it to steps that take the builder's reference", async () => {
    const { value } = await flow.run({ input: { n: 2 } }).result();
    expect(value).toEqual({ input: { n: 2, label: "none" }, raw: { n: 2, label: "none" } });
  });

  it("refuses input that does not fit before anything runs", () => {
    expect(() => flow.run({ input: { n: 0 } })).toThrow(/workflow typed: the run input is not valid at "n"/);
    expect(() => flow.run({})).toThrow(/SCHEMA_MISMATCH|not valid/);
    expect(() => ava.workflow({ name: "bad_input", input: 5 as never }, () => echo(1))).toThrow(/zod schema/);
  });
});

describe("ava.consume (consume_stream outside workflows)", () => {
  it("processes each pending snapshot exactly once, its appends committed with the progress", async () => {
    const { ns } = await open();
    for (let i = 1; i <= 3; i++) await ns.items.append([{ id: `a${i}`, n: i }]);
    const sum = (rows: { getChild(n: string): { toArray(): ArrayLike<bigint | number> } | null }) =>
      Array.from(rows.getChild("n")!.toArray(), Number).reduce((a, b) => a + b, 0);
    const first = await ava.consume(ns.items, { key: "totals", maxSnapshots: 2 }, async (rows, tx) => {
      await tx.append(ns.totals, { total: sum(rows) });
      return rows.numRows;
    });
    expect(first).toEqual({ snapshots: 2, rows: 2, value: 2 });
    const second = await ava.consume(ns.items, { key: "totals", maxSnapshots: 2 }, async (rows, tx) => {
      await tx.append(ns.totals, { total: sum(rows) });
    });
    expect(second.snapshots).toBe(1);
    const none = await ava.consume(ns.items, { key: "totals" }, async () => {
      throw new Error("not called when nothing is pending");
    });
    expect(none).toEqual({ snapshots: 0, rows: 0, value: undefined });
    expect((await ns.totals.scan({ columns: ["total"] }).toObjects()).map((r) => r.total)).toEqual([3, 3]);
  });

  it("lands nothing when fn throws, counts the attempt, and quarantines after maxAttempts", async () => {
    const { storage, ns } = await open();
    await ns.items.append([{ id: "a", n: 1 }]);
    const failing = () =>
      ava.consume(ns.items, { key: "flaky", maxAttempts: 2 }, async (_rows, tx) => {
        await tx.append(ns.totals, { total: 1 });
        throw new Error("downstream down");
      });
    await expect(failing()).rejects.toThrow(/downstream down/);
    expect((await ns.totals.read()).numRows).toBe(0);
    expect(await storage.files.list("data/strict/totals")).toEqual([]);
    expect((await ava.streamState(storage, Strict.tables.items, "flaky")).position).toBe(0);
    await expect(failing()).rejects.toThrow(/downstream down/);
    const state = await ava.streamState(storage, Strict.tables.items, "flaky");
    expect(state.position).toBe(1); // quarantined: the consumer moved past it
    expect(state.quarantined).toHaveLength(1);
  });

  it("refuses bad arguments with clear errors", async () => {
    const { ns } = await open();
    await expectAvaError(
      ava.consume(Strict.tables.items as never, { key: "k" }, async () => {}),
      "INVALID_ARGUMENT",
      /opened table/,
    );
    await expectAvaError(
      ava.consume(ns.items, { key: "Bad Key" }, async () => {}),
      "INVALID_ARGUMENT",
      /needs a key/,
    );
    await expectAvaError(
      ava.consume(ns.items, { key: "k" }, null as never),
      "INVALID_ARGUMENT",
      /not a function/,
    );
    await ns.items.append([{ id: "a", n: 1 }]);
    const other = await Strict.open({ storage: ava.memoryStorage() });
    await other.push();
    await expectAvaError(
      ava.consume(ns.items, { key: "k" }, (_rows, tx) => tx.append(other.totals, { total: 1 })),
      "INVALID_ARGUMENT",
      /another storage/,
    );
  });
});

describe("scan({ limit })", () => {
  it("yields the first rows in commit order and reads no file past them", async () => {
    const storage = ava.memoryStorage();
    let reads = 0;
    const counting = {
      ...storage,
      files: Object.assign(Object.create(storage.files), {
        read: (path: string) => {
          reads++;
          return storage.files.read(path);
        },
      }),
    };
    const ns = await Strict.open({ storage: counting });
    await ns.push();
    for (let f = 0; f < 3; f++) await ns.items.append([0, 1].map((i) => ({ id: `${f}.${i}`, n: f * 2 + i })));
    const ids = async (options: Parameters<typeof ns.items.scan>[0]) =>
      (await ns.items.scan({ columns: ["id"], ...options }).toObjects()).map((r) => r.id);
    reads = 0;
    expect(await ids({ limit: 3 })).toEqual(["0.0", "0.1", "1.0"]);
    expect(reads).toBe(2);
    expect(await ids({ limit: 2, filter: (w) => w.gt("n", 2) })).toEqual(["1.1", "2.0"]);
    reads = 0;
    expect(await ids({ limit: 0 })).toEqual([]);
    expect(reads).toBe(0);
    expect(await ids({ limit: 100 })).toHaveLength(6);
    expect((await ns.items.readModels({ limit: 1 })).map((m) => m.id)).toEqual(["0.0"]);
    for (const bad of [-1, 1.5, Number.NaN, "2"])
      await expectAvaError(async () => ns.items.scan({ limit: bad as never }), "INVALID_ARGUMENT", /limit/);
  });
});
