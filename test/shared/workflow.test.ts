// The workflow engine with the inline executor, in Node and in Chromium: building (edges, slugs, cycles),
// running (values, concurrency, failure, skip, cancel), injected tables and the runs recorded in the catalog.
import { describe, expect, it } from "vitest";
import * as ava from "../../src/index.js";
import { expectAvaError } from "./fixtures.js";
import {
  relayFlow,
  arrowFlow,
  bothTables,
  failingWriter,
  lineageless,
  passthrough,
  streamFlow,
  tooMany,
  Docs,
  diamond,
  failing,
  inc,
  math,
  multi,
  notesFlow,
  randomDag,
  randomDagReference,
  skipping,
  twoSleeps,
} from "./workflow-flows.js";

describe("building a workflow", () => {
  it("records invocations as nodes with slugs, ids and edges, in a topological order", () => {
    expect(math.nodes.map((n) => n.slug)).toEqual(["inc", "inc_2", "add"]);
    expect(math.nodes.map((n) => n.nodeId)).toEqual(["inc_1", "inc_2", "add_1"]);
    expect([...math.node("add").after].map((n) => n.slug).sort()).toEqual(["inc", "inc_2"]);
    expect(math.node("inc").step.role).toBe("step");
    const load = ava.source(async function load() {
      return 1;
    });
    const send = ava.dest(async function send(_x: number) {});
    const etl = ava.workflow({ name: "etl" }, () => send(load()));
    expect(etl.nodes.map((n) => [n.slug, n.step.role])).toEqual([
      ["load", "source"],
      ["send", "dest"],
    ]);
  });

  it("refuses cycles made by ordering edges, naming the slugs", () => {
    expect(() =>
      ava.workflow({ name: "cyclic" }, () => {
        const a = inc(1);
        const b = inc(a);
        b.before(a);
      }),
    ).toThrow(/cycle through inc, inc_2/);
  });

  it("refuses two different steps with one slug, and steps called outside a builder", async () => {
    const one = ava.step(async () => 1, { slug: "same" });
    const two = ava.step(async () => 2, { slug: "same" });
    await expectAvaError(
      () => ava.workflow({ name: "dup" }, () => [one(), two()]),
      "WORKFLOW_INVALID",
      /"same"/,
    );
    await expectAvaError(() => inc(1), "WORKFLOW_INVALID", /outside a workflow builder/);
    await expectAvaError(() => ava.step("bad name", async () => 1), "WORKFLOW_INVALID", /"bad name"/);
    await expectAvaError(
      () => ava.step(async function ok() {}, { slug: "bad slug" }),
      "WORKFLOW_INVALID",
      /bad slug/,
    );
    await expectAvaError(() => ava.workflow({ name: "bad name!" }, () => {}), "INVALID_NAME");
    await expectAvaError(
      () => ava.workflow({ name: "nested" }, () => inc([inc(1)])),
      "WORKFLOW_INVALID",
      /inside an array or object/,
    );
  });

  it("names a step by its first argument, a name a minifier cannot strip", async () => {
    const triple = ava.step("triple", async (x: number) => x * 3);
    const flow = ava.workflow({ name: "named" }, () => triple(triple(2)));
    expect(flow.nodes.map((n) => n.slug)).toEqual(["triple", "triple_2"]);
    expect((await flow.run().result()).value).toBe(18);
    const split = ava.source("split", async () => [1, 2], { numReturns: 2 });
    expect(split.definition).toMatchObject({ slug: "split", role: "source", numReturns: 2 });
  });

  it("refuses a step without a name when its workflow runs, never at definition", async () => {
    // What a minifier leaves of `ava.step(async function generate() {…})`: a function without a name.
    const anonymous = ava.step(async () => 1);
    const named = ava.step("named", async (x: number) => x + 1);
    const flow = ava.workflow({ name: "minified" }, () => named(anonymous())); // defining it throws nothing
    await expectAvaError(
      () => flow.run(),
      "WORKFLOW_INVALID",
      /workflow minified: step call 1 has no name .*ava\.step\("generate"/,
    );
    expect((await math.run().result()).value).toBe(5); // other workflows of the module still run
  });

  it("orders nodes explicitly with before() and parallel groups", async () => {
    const log: string[] = [];
    const note = ava.step(async function note(label: string) {
      log.push(label);
      return label;
    });
    const flow = ava.workflow({ name: "ordered" }, () => {
      const first = note("first");
      ava.parallel(note("a"), note("b")).before(note("last"));
      first.before(ava.parallel(note("x")));
    });
    expect([...flow.node("note_4").after].map((n) => n.slug).sort()).toEqual(["note_2", "note_3"]);
    expect([...flow.node("note_5").after].map((n) => n.slug)).toEqual(["note"]);
    await flow.run().result();
    expect(log.indexOf("last")).toBeGreaterThan(Math.max(log.indexOf("a"), log.indexOf("b")));
    expect(log.indexOf("x")).toBeGreaterThan(log.indexOf("first"));
  });
});

describe("running a workflow inline", () => {
  it("evaluates a diamond and returns the builder's output with futures resolved", async () => {
    const result = await diamond.run().result();
    expect(result.status).toBe("success");
    expect(result.value).toEqual({ bottom: 22 + 12 + 11 + 1, left: 22, right: 12 });
    expect(Object.values(result.nodes).every((n) => n.status === "success")).toBe(true);
    expect((await math.run().result()).value).toBe(5);
    expect((await multi.run().result()).value).toBe(33);
  });

  it("matches a reference topological evaluation on a 200-node random DAG", async () => {
    const result = await randomDag.run().result();
    expect(result.value).toEqual(randomDagReference());
  });

  it("runs ready nodes concurrently: two 300 ms sleeps overlap, and not with concurrency 1", async () => {
    // Judged by the nodes' own start and finish times, not wall clock: a loaded machine cannot flip it.
    const overlap = (r: ava.RunResult) => {
      const [a, b] = [r.nodes.sleep!, r.nodes.sleep_2!];
      return a.startedMs! < b.finishedMs! && b.startedMs! < a.finishedMs!;
    };
    expect(overlap(await twoSleeps.run().result())).toBe(true);
    const one = await twoSleeps.run({ executor: ava.inlineExecutor({ concurrency: 1 }) }).result();
    expect(overlap(one)).toBe(false);
  });

  it("fails the run on a throwing node: its downstream does not run, independent branches finish", async () => {
    const handle = failing.run();
    const err = (await expectAvaError(
      handle.result(),
      "RUN_FAILED",
      /boom/,
      /boom went the node/,
    )) as ava.RunError;
    const nodes = err.result.nodes;
    expect(nodes.boom!.status).toBe("failed");
    expect(nodes.boom!.error).toMatchObject({
      name: "AvaError",
      code: "INVALID_ARGUMENT",
      message: "boom went the node",
    });
    expect(nodes.boom!.error!.stack).toMatch(/boom/);
    expect(nodes.after_boom!.status).toBe("not_run");
    expect(nodes.inc!.status).toBe("success");
    expect(ava.isAvaError(err.cause, "INVALID_ARGUMENT")).toBe(true);
  });

  it("treats ava.skip() as a successful empty outcome passed downstream", async () => {
    const result = await skipping.run().result();
    expect(result.nodes.maybe!.status).toBe("skipped");
    expect(result.value).toBe("skipped: nothing to do");
  });

  it("cancels: nothing new starts, running nodes see the abort", async () => {
    const handle = twoSleeps.run({ executor: ava.inlineExecutor({ concurrency: 1 }) });
    setTimeout(() => handle.cancel(), 50);
    const err = (await expectAvaError(handle.result(), "RUN_CANCELLED")) as ava.RunError;
    expect(err.result.nodes.sleep!.status).toBe("cancelled");
    expect(err.result.nodes.sleep_2!.status).toBe("cancelled");
    // A sleep that ignored the abort would hold the run for its whole 300 ms.
    expect(err.result.finishedMs - err.result.startedMs).toBeLessThan(300);
  });

  it("reports progress a progress bar can follow", async () => {
    const handle = randomDag.run();
    const events: ava.RunEvent[] = [];
    handle.on((e) => events.push(e));
    await handle.result();
    const finished = events.filter((e) => e.type === "node-finished");
    expect(finished).toHaveLength(200);
    expect(finished.map((e) => e.done)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(events.at(-1)).toMatchObject({ type: "run-finished", status: "success", done: 200, total: 200 });
    expect(handle.progress).toEqual({ done: 200, total: 200 });
  });

  it("crosses Arrow tables between nodes", async () => {
    const { value } = await arrowFlow.run().result();
    expect(value).toEqual({ rows: 1000, sum: 499_500, isTable: true });
  });
});

describe("runs and storage", () => {
  it("opens injected tables on the run's storage, stamps provenance, and records the run", async () => {
    const storage = ava.memoryStorage();
    const ns = await Docs.open({ storage });
    await ns.push();
    const handle = notesFlow.run({
      storage,
      input: { prefix: "n" },
      runId: "run-1",
      metadata: { who: "test" },
    });
    expect(handle.runId).toBe("run-1");
    const result = await handle.result();
    expect(result.value).toEqual({ appended: 3, slug: "write_notes", runId: "run-1" });
    const rows = await ns.notes.scan().toObjects();
    expect(rows.map((r) => r.text)).toEqual(["n0", "n1", "n2"]);
    expect(rows[0]).toMatchObject({
      _ava_run_id: "run-1",
      _ava_workflow_name: "notes",
      _ava_node_slug: "write_notes",
      _ava_node_name: "write_notes",
      _ava_ctx_metadata: { who: "test" },
    });
    expect((await ns.notes.currentSnapshot())!.runId).toBe("run-1");

    const run = await ava.getRun(storage, "run-1");
    expect(run).toMatchObject({ workflowName: "notes", status: "success", metadata: { who: "test" } });
    expect(run.nodes.write_notes!.status).toBe("success");
    expect((await ava.listRuns(storage, { workflowName: "notes" })).map((r) => r.runId)).toEqual(["run-1"]);
    // a run id is used once
    await expectAvaError(
      notesFlow.run({ storage, input: { prefix: "m" }, runId: "run-1" }).result(),
      "INVALID_ARGUMENT",
      /run-1/,
    );
    await expectAvaError(ava.getRun(storage, "nope"), "NOT_FOUND", /nope/);
    expect(() => notesFlow.run({ runId: "bad id!" })).toThrow(/runId/);
  });

  it("records failed runs with their node errors; injected tables need a storage", async () => {
    const storage = ava.memoryStorage();
    await expectAvaError(failing.run({ storage, runId: "f1" }).result(), "RUN_FAILED");
    const run = await ava.getRun(storage, "f1");
    expect(run.status).toBe("failed");
    expect(run.nodes.boom).toMatchObject({ status: "failed", error: { message: "boom went the node" } });
    expect(run.nodes.after_boom!.status).toBe("not_run");
    const err = (await expectAvaError(
      notesFlow.run({ input: { prefix: "x" } }).result(),
      "RUN_FAILED",
    )) as ava.RunError;
    expect(err.result.nodes.write_notes!.error!.message).toMatch(/needs the run's storage/);
  });
});

describe("streams", () => {
  /** memoryStorage whose data-file reads are counted. */
  function countingStorage(): { storage: ava.Storage; reads: () => number } {
    const inner = ava.memoryStorage();
    let reads = 0;
    const files: ava.FileStore = {
      write: (p, b) => inner.files.write(p, b),
      read: (p) => {
        reads++;
        return inner.files.read(p);
      },
      readRange: (p, o, l) => inner.files.readRange(p, o, l),
      list: (p) => inner.files.list(p),
      delete: (p) => inner.files.delete(p),
    };
    return { storage: { descriptor: inner.descriptor, files, catalog: inner.catalog }, reads: () => reads };
  }

  it("gives a node exactly the rows its upstream nodes appended in this run", async () => {
    const storage = ava.memoryStorage();
    await (await Docs.open({ storage })).push();
    for (let run = 0; run < 2; run++) {
      const { value } = await streamFlow.run({ storage }).result();
      // not the row of other_writer (not upstream), not the rows of the earlier run
      expect(value).toEqual({ rows: 3, texts: ["p0", "p1", "p2"], slugs: ["produce"] });
    }
    expect((await (await Docs.open({ storage })).notes.read()).numRows).toBe(8);
  });

  it("stamps appended rows with a lineage vector of the runs whose rows the node consumed", async () => {
    const storage = ava.memoryStorage();
    const ns = await Docs.open({ storage });
    await ns.push();
    const { runId } = await relayFlow.run({ storage, runId: "lineage-1" }).result();
    const [row] = await ns.more.scan().toObjects();
    expect(row).toMatchObject({
      v: 2,
      _ava_node_slug: "relay",
      _ava_lineage_vector: { produce: runId, relay: runId },
    });
    const [note] = await ns.notes.scan().toObjects();
    expect(note!._ava_lineage_vector).toEqual({ produce: runId }); // produce consumed nothing: itself only
  });

  it("uses an upstream AppendResult for the same table as the stream, with no storage read", async () => {
    const { storage, reads } = countingStorage();
    await (await Docs.open({ storage })).push();
    const { value } = await passthrough.run({ storage }).result();
    expect(value).toMatchObject({ rows: 2, same: true });
    expect(reads()).toBe(0);
    await streamFlow.run({ storage }).result();
    expect(reads()).toBeGreaterThan(0); // the control: a stream with no AppendResult does read
  });

  it("refuses wrong cardinality naming workflow, run and node, and tables without lineage", async () => {
    const storage = ava.memoryStorage();
    await (await Docs.open({ storage })).push();
    const err = (await expectAvaError(
      tooMany.run({ storage, runId: "card-1" }).result(),
      "RUN_FAILED",
    )) as ava.RunError;
    expect(err.result.nodes.only_one!.error).toMatchObject({ code: "CARDINALITY" });
    expect(err.result.nodes.only_one!.error!.message).toMatch(
      /modelStream\.one\(wfdocs\.notes\) in workflow too-many, run card-1, node only_one \(fed by produce\): expected exactly one row, got 3/,
    );
    const bad = (await expectAvaError(lineageless.run({ storage }).result(), "RUN_FAILED")) as ava.RunError;
    expect(bad.result.nodes.no_lineage!.error!.message).toMatch(/rowLineage: false/);
    expect(() => ava.stream({} as never)).toThrow(/Def\.tables/);
  });
});

describe("a node's writes commit together", () => {
  it("leaves no rows and no data files when the node throws after appending", async () => {
    const storage = ava.memoryStorage();
    const ns = await Docs.open({ storage });
    await ns.push();
    await expectAvaError(failingWriter.run({ storage }).result(), "RUN_FAILED", /failed after appending/);
    expect((await ns.notes.read()).numRows).toBe(0);
    expect(await ns.notes.history()).toEqual([]);
    expect(await storage.files.list("data/")).toEqual([]);
  });

  it("commits a node's appends to two tables in one catalog commit, with complete snapshots", async () => {
    const storage = ava.memoryStorage();
    const ns = await Docs.open({ storage });
    await ns.push();
    await ns.notes.append([{ id: 0, text: "before" }]);
    const before = (await storage.catalog.current()).version;
    const { value } = await bothTables.run({ storage }).result();
    // the run's start and end records, and one commit for both tables
    expect((await storage.catalog.current()).version - before).toBe(3);
    const { a, b } = value as { a: ava.Snapshot; b: ava.Snapshot };
    expect(a).toMatchObject({ sequenceNumber: 2, parentId: (await ns.notes.history())[0]!.id, totalRows: 2 });
    expect(b).toMatchObject({ sequenceNumber: 1, parentId: null, totalRows: 1 });
    expect((await ns.notes.currentSnapshot())!.id).toBe(a.id);
  });
});
