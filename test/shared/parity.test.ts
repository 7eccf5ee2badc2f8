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
    // A data file per append (not inlined): tests here count the files a scan reads and a drop deletes.
    items: ava.table({ schema: z.strictObject({ id: z.string(), n: z.int() }), inline: false }),
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

describe("lineage vectors (the original's _lineage_values)", () => {
  const Lin = ava.defineNamespace({
    name: "lin",
    tables: {
      raw: ava.table({ schema: z.object({ x: z.int() }) }),
      out: ava.table({ schema: z.object({ y: z.int() }) }),
    },
  });
  const load = ava.step("load", async (_: undefined, { raw }) => (await raw.append({ x: 1 })).rowCount, {
    inject: { raw: Lin.tables.raw },
  });
  const process = ava.step("process", async (n: number) => n + 1);
  const sink = ava.step(
    "sink",
    async (n: number, { rows, out }) => (await out.append({ y: n + rows.numRows })).rowCount,
    { inject: { rows: ava.stream(Lin.tables.raw), out: Lin.tables.out } },
  );
  const flow = ava.workflow({ name: "lineage" }, () => {
    const l = load(undefined);
    return sink(process(l));
  });
  const vectors = async (ns: Awaited<ReturnType<typeof Lin.open>>, runId: string) =>
    (await ns.out.scan({ filter: (w) => w.eq("_ava_run_id", runId) }).toObjects()).map(
      (r) => r._ava_lineage_vector,
    );

  it("merges what values and streamed rows carry, plus the node's own slug, keys sorted", async () => {
    const storage = ava.memoryStorage();
    const ns = await Lin.open({ storage });
    await ns.push();
    await flow.run({ storage, runId: "l1" }).result();
    const [vector] = await vectors(ns, "l1");
    expect(vector).toEqual({ load: "l1", process: "l1", sink: "l1" });
    const text = (await ns.out.scan({ columns: ["_ava_lineage_vector"] }).toArrow())
      .getChild("_ava_lineage_vector")!
      .get(0);
    expect(text).toBe('{"load":"l1","process":"l1","sink":"l1"}');
    const [raw] = await ns.raw.scan().toObjects();
    expect(raw!._ava_lineage_vector).toEqual({ load: "l1" });
  });

  it("in a rerun, nodes left out keep the source run's id", async () => {
    const storage = ava.memoryStorage();
    const ns = await Lin.open({ storage });
    await ns.push();
    await flow.run({ storage, runId: "l1" }).result();
    // load is left out of the rerun: sink reads its rows through the stream, and they name load's run
    const streamed = ava.step(
      "sink",
      async (_: undefined, { rows, out }) => (await out.append({ y: rows.numRows })).rowCount,
      { inject: { rows: ava.stream(Lin.tables.raw), out: Lin.tables.out } },
    );
    const ordered = ava.workflow({ name: "lineage_stream" }, () => {
      const l = load(undefined);
      const s = streamed(undefined);
      l.before(s);
      return s;
    });
    await ordered.run({ storage, runId: "s1" }).result();
    expect(await vectors(ns, "s1")).toEqual([{ load: "s1", sink: "s1" }]);
    await ordered
      .run({ storage, runId: "s2", rerun: ava.rerun({ runId: "s1", start: ["sink"], mode: "lazy" }) })
      .result();
    expect(await vectors(ns, "s2")).toEqual([{ load: "s1", sink: "s2" }]);
  });
});

describe("ava.logger()", () => {
  it("keeps the first lines in the run record and counts the rest", async () => {
    const storage = ava.memoryStorage();
    const chatty = ava.step(
      "chatty",
      async (n: number, { log }) => {
        for (let i = 0; i < n; i++)
          log.info(
            `line ${i}`,
            i === 0
              ? {
                  cyclic: (() => {
                    const o: Record<string, unknown> = {};
                    o.self = o;
                    return o;
                  })(),
                }
              : undefined,
          );
        return n;
      },
      { inject: { log: ava.logger() } },
    );
    const flow = ava.workflow({ name: "chatty" }, () => chatty(600));
    const { runId, nodes } = await flow.run({ storage }).result();
    expect(nodes.chatty!.logs).toHaveLength(500);
    expect(nodes.chatty!.droppedLogs).toBe(100);
    expect(nodes.chatty!.logs![0]!.fields).toEqual({ unwritable: expect.stringMatching(/not JSON/) });
    const recorded = await ava.getRun(storage, runId);
    expect(recorded.nodes.chatty!.logs![499]!.message).toBe("line 499");
    expect(recorded.nodes.chatty!.droppedLogs).toBe(100);
  });

  it("refuses an unknown level", () => {
    expect(() => ava.logger({ level: "loud" as never })).toThrow(/use debug, info, warn or error/);
  });
});

describe("drop (the original's ns.drop())", () => {
  it("drops a table with its data, progress and cursors; push() makes it anew", async () => {
    const { storage, ns } = await open();
    await ns.items.append([{ id: "a", n: 1 }]);
    await ns.items.append([{ id: "b", n: 2 }]);
    await ava.consume(ns.items, { key: "k" }, async () => {});
    const result = await ns.items.drop();
    expect(result).toEqual({ tables: ["strict.items"], deletedFiles: 2 });
    expect(await storage.files.list("data/strict/items")).toEqual([]);
    expect(await ns.listTables()).not.toContain("items");
    await expectAvaError(ns.items.read(), "NOT_FOUND", /push\(\)/);
    await expectAvaError(ns.items.append({ id: "c", n: 3 }), "NOT_FOUND");
    await expectAvaError(ns.items.drop(), "NOT_FOUND", /strict\.items/);
    await ns.push();
    expect((await ns.items.read()).numRows).toBe(0);
    expect((await ava.streamState(storage, Strict.tables.items, "k")).position).toBe(0);
    expect((await ns.totals.history()).length).toBe(0); // other tables untouched
  });

  it("drops a namespace and its tables in one commit, or refuses when told to keep tables", async () => {
    const { storage, ns } = await open();
    await ns.items.append([{ id: "a", n: 1 }]);
    const version = (await storage.catalog.current()).version;
    await expectAvaError(
      ns.drop({ dropTables: false }),
      "INVALID_ARGUMENT",
      /still has tables \(items, plain, totals\)/,
    );
    expect((await storage.catalog.current()).version).toBe(version);
    const result = await ns.drop();
    expect(result.tables.sort()).toEqual(["strict.items", "strict.plain", "strict.totals"]);
    const after = await storage.catalog.current();
    expect(after.version).toBe(version + 1);
    expect(after.namespaces.strict).toBeUndefined();
    expect(await storage.files.list("data/")).toEqual([]);
    await expectAvaError(ns.drop(), "NOT_FOUND", /namespace strict/);
    await ns.push();
    await ns.items.append([{ id: "again", n: 1 }]);
    expect((await ns.items.read()).numRows).toBe(1);
  });
});

describe("stream administration (the original's ProgressStore)", () => {
  const fail = (ns: Awaited<ReturnType<typeof open>>["ns"], when: (ids: string[]) => boolean) =>
    ava.consume(ns.items, { key: "adm", maxAttempts: 1 }, async (rows) => {
      const ids = Array.from(rows.getChild("id")!.toArray() as string[]);
      if (when(ids)) throw new Error(`refusing ${ids.join(",")}`);
      return ids;
    });

  it("lists pending snapshots, releases a quarantined one to be taken again first, and resets", async () => {
    const { storage, ns } = await open();
    const T = Strict.tables.items;
    for (const id of ["a", "b", "c"]) await ns.items.append([{ id, n: 1 }]);
    const history = await ns.items.history();
    expect((await ava.pendingSnapshots(storage, T, "adm")).map((p) => p.snapshotId)).toEqual(
      history.map((s) => s.id),
    );
    await expect(fail(ns, (ids) => ids.includes("a"))).rejects.toThrow(/refusing a/); // a quarantined (maxAttempts 1)
    expect((await ava.streamState(storage, T, "adm")).quarantined).toEqual([history[0]!.id]);
    expect((await fail(ns, () => false)).value).toEqual(["b"]);

    const released = await ava.releaseSnapshot(storage, T, "adm", history[0]!.id);
    expect(released).toMatchObject({ position: 2, quarantined: [], retry: [history[0]!.id] });
    expect(
      (await ava.pendingSnapshots(storage, T, "adm")).map((p) => [p.sequenceNumber, p.released]),
    ).toEqual([
      [1, true],
      [3, false],
    ]);
    expect((await fail(ns, () => false)).value).toEqual(["a"]); // the released one first
    expect((await fail(ns, () => false)).value).toEqual(["c"]);
    expect(await ava.pendingSnapshots(storage, T, "adm")).toEqual([]);

    const reset = await ava.resetStream(storage, T, "adm", { position: 1 });
    expect(reset).toMatchObject({ position: 1, attempts: {} });
    expect((await fail(ns, () => false)).value).toEqual(["b"]);
  });

  it("a released snapshot that fails again goes back to quarantine without moving the position", async () => {
    const { storage, ns } = await open();
    const T = Strict.tables.items;
    for (const id of ["a", "b"]) await ns.items.append([{ id, n: 1 }]);
    await expect(fail(ns, (ids) => ids.includes("a"))).rejects.toThrow();
    await fail(ns, () => false);
    const [first] = await ns.items.history();
    await ava.releaseSnapshot(storage, T, "adm", first!.id);
    await expect(fail(ns, () => true)).rejects.toThrow(/refusing a/);
    expect(await ava.streamState(storage, T, "adm")).toMatchObject({ position: 2, quarantined: [first!.id] });
  });

  it("refuses bad arguments and names what is wrong", async () => {
    const { storage, ns } = await open();
    const T = Strict.tables.items;
    await ns.items.append([{ id: "a", n: 1 }]);
    await expectAvaError(
      ava.releaseSnapshot(storage, T, "adm", "nope"),
      "NOT_FOUND",
      /no quarantined snapshot nope/,
    );
    await expectAvaError(
      ava.resetStream(storage, T, "adm", { position: 5 }),
      "INVALID_ARGUMENT",
      /between 0 and 1/,
    );
    await expectAvaError(ava.resetStream(storage, T, "adm", { position: -1 }), "INVALID_ARGUMENT");
    await expectAvaError(
      ava.pendingSnapshots(storage, ns.items as never, "adm"),
      "INVALID_ARGUMENT",
      /Def\.tables/,
    );
    await expectAvaError(ava.pendingSnapshots(storage, T, "Bad"), "INVALID_ARGUMENT", /key/);
    const version = (await storage.catalog.current()).version;
    await expectAvaError(ava.releaseSnapshot(storage, T, "adm", 5 as never), "INVALID_ARGUMENT");
    expect((await storage.catalog.current()).version).toBe(version);
  });
});

describe("an append_scan consumer in a rerun (the original: 'Rerun overrides mode')", () => {
  const Q = ava.defineNamespace({
    name: "rerun_scan",
    tables: {
      queue: ava.table({ schema: z.object({ x: z.int() }) }),
      seen: ava.table({ schema: z.object({ xs: z.string() }) }),
    },
  });
  const produce = ava.step("produce", async (x: number, { queue }) => (await queue.append({ x })).rowCount, {
    inject: { queue: Q.tables.queue },
  });
  const take = ava.step(
    "take",
    async (_: unknown, { rows, seen }) => {
      const xs = Array.from(rows.getChild("x")!.toArray() as BigInt64Array, Number).join(",");
      await seen.append({ xs });
      return xs;
    },
    {
      inject: {
        rows: ava.stream(Q.tables.queue, { mode: "append_scan", key: "taker" }),
        seen: Q.tables.seen,
      },
    },
  );
  const flow = ava.workflow({ name: "rerun_scan" }, (input) => {
    const made = produce(input);
    const taken = take(undefined); // ordered after produce, with no value of it: a rerun may leave produce out
    made.before(taken);
    return taken;
  });

  it("replays the source run's upstream rows and leaves the consumer's progress untouched", async () => {
    const storage = ava.memoryStorage();
    const ns = await Q.open({ storage });
    await ns.push();
    expect((await flow.run({ storage, runId: "q1", input: 1 }).result()).value).toBe("1");
    expect((await flow.run({ storage, runId: "q2", input: 2 }).result()).value).toBe("2");
    await ns.queue.append({ x: 3 }); // pending for the consumer
    const before = await ava.streamState(storage, Q.tables.queue, "taker");
    const lazy = ava.rerun({ runId: "q1", start: ["take"], mode: "lazy" });
    expect((await flow.run({ storage, runId: "q3", rerun: lazy }).result()).value).toBe("1");
    expect(await ava.streamState(storage, Q.tables.queue, "taker")).toEqual(before);
    // a rerun of the rerun reads the newest rows along the chain: still q1's (q3 produced none)
    const again = ava.rerun({ runId: "q3", start: ["take"], mode: "lazy" });
    expect((await flow.run({ storage, runId: "q4", rerun: again }).result()).value).toBe("1");
    // the next ordinary run takes what was pending: the x = 3 snapshot's turn comes after q2's
    expect((await flow.run({ storage, runId: "q5", input: 5 }).result()).value).toBe("3");
  });
});
