// One suite for every worker executor (Web Workers in Chromium, worker threads in Node): the workflows of
// workflow-flows.ts run in workers started on the test's own worker entries, with the same results as inline.
import { afterAll, describe, expect, it } from "vitest";
import * as ava from "../../src/index.js";
import { expectAvaError } from "./fixtures.js";
import * as flows from "./workflow-flows.js";

export interface ExecutorTarget {
  /** A pool on the entry that serves every workflow of workflow-flows.ts. */
  executor(size: number): ava.Executor;
  /** A pool on an entry that serves `math` only. */
  narrowExecutor(): ava.Executor;
  /** This platform's workerExecutor, for options of the wrong shape (executors without a `worker` option: none). */
  create?(options: unknown): ava.Executor;
  /** The executor's kind, as a node's RunContext tells it. Default: a Web Worker or worker-thread pool's. */
  kind?: RegExp;
  /** What the error of a workflow the narrow workers lack tells to do. Default: add it to serveWorkflows(...). */
  toServeMore?: RegExp;
  /** A storage that workers can reopen (Node files, OPFS + IndexedDB). */
  storage(): ava.Storage | Promise<ava.Storage>;
}

/** The run fails on a node the worker does not serve: NOT_FOUND, naming what it serves and how to serve more. */
export async function expectNotServed(
  run: ava.RunHandle,
  serves: RegExp,
  toServeMore: RegExp,
): Promise<void> {
  const err = (await expectAvaError(run.result(), "RUN_FAILED")) as ava.RunError;
  const first = Object.values(err.result.nodes).find((n) => n.status === "failed")!;
  expect(first.error).toMatchObject({ code: "NOT_FOUND" });
  expect(first.error!.message).toMatch(serves);
  expect(first.error!.message).toMatch(toServeMore);
}

export function describeExecutor(name: string, target: ExecutorTarget): void {
  describe(`worker executor: ${name}`, () => {
    const pool = target.executor(2);
    afterAll(() => pool.close());

    it("gives the same results as inline for every flow", async () => {
      for (const flow of [
        flows.math,
        flows.diamond,
        flows.multi,
        flows.skipping,
        flows.arrowFlow,
        flows.randomDag,
      ]) {
        const inline = await (flow as ava.Workflow).run().result();
        const inWorkers = await (flow as ava.Workflow).run({ executor: pool }).result();
        expect(inWorkers.value).toEqual(inline.value);
        expect(Object.values(inWorkers.nodes).map((n) => n.status)).toEqual(
          Object.values(inline.nodes).map((n) => n.status),
        );
      }
      expect((await flows.randomDag.run({ executor: pool }).result()).value).toEqual(
        flows.randomDagReference(),
      );
    });

    it("runs ready nodes concurrently across the pool", async () => {
      await flows.twoSleeps.run({ executor: pool }).result(); // both workers started
      const t0 = performance.now();
      await flows.twoSleeps.run({ executor: pool }).result();
      expect(performance.now() - t0).toBeLessThan(550); // loosely: one after the other would be 600+
    });

    it("carries a node's error back with name, message, code and stack", async () => {
      const err = (await expectAvaError(
        flows.failing.run({ executor: pool }).result(),
        "RUN_FAILED",
        /boom went the node/,
      )) as ava.RunError;
      expect(err.result.nodes.boom!.error).toMatchObject({ name: "AvaError", code: "INVALID_ARGUMENT" });
      expect(err.result.nodes.boom!.error!.stack).toMatch(/boom/);
      expect(err.result.nodes.inc!.status).toBe("success");
      expect(ava.isAvaError(err.cause, "INVALID_ARGUMENT")).toBe(true);
    });

    it("cancels a node running in a worker", async () => {
      const one = target.executor(1);
      try {
        await flows.math.run({ executor: one }).result(); // the worker has started: only the sleep is timed
        const t0 = performance.now();
        const handle = flows.longSleeps.run({ executor: one });
        setTimeout(() => handle.cancel(), 1500); // inside the first 5 s sleep
        const err = (await expectAvaError(handle.result(), "RUN_CANCELLED")) as ava.RunError;
        expect(Object.values(err.result.nodes).map((n) => n.status)).toEqual(["cancelled", "cancelled"]);
        expect(performance.now() - t0).toBeLessThan(4000); // the sleep in the worker saw the abort
      } finally {
        await one.close();
      }
    });

    it("fails only the node of a worker that dies, and replaces the worker", async () => {
      const err = (await expectAvaError(
        flows.crashing.run({ executor: pool }).result(),
        "RUN_FAILED",
        /crash/,
      )) as ava.RunError;
      expect(err.result.nodes.crash!.error).toMatchObject({ code: "WORKER_CRASHED" });
      expect(err.result.nodes.crash!.error!.message).toMatch(/the worker running node crash died.*fell over/);
      expect(err.result.nodes.inc!.status).toBe("success");
      expect((await flows.math.run({ executor: pool }).result()).value).toBe(5); // the pool still works
    });

    it("reopens the run's storage in the worker: injected tables append with the run's provenance", async () => {
      const storage = await target.storage();
      const ns = await flows.Docs.open({ storage });
      await ns.push();
      const result = await flows.notesFlow
        .run({ storage, executor: pool, input: { prefix: "w" }, runId: `w-${Date.now()}` })
        .result();
      expect(result.value).toMatchObject({ appended: 3, slug: "write_notes" });
      const rows = await ns.notes.scan().toObjects();
      expect(rows.map((r) => r.text)).toEqual(["w0", "w1", "w2"]);
      expect(rows[0]!._ava_run_id).toBe(result.runId);
      expect((await ava.getRun(storage, result.runId)).status).toBe("success");
    });

    it("carries lineage through values that cross workers, and brings log lines back", async () => {
      const storage = await target.storage();
      const ns = await flows.Docs.open({ storage });
      await ns.push();
      const { runId } = await flows.valueLineage
        .run({ storage, executor: pool, runId: `vl-${Date.now()}` })
        .result();
      const rows = await ns.more.scan({ filter: (w) => w.eq("_ava_run_id", runId) }).toObjects();
      expect(rows.map((r) => r._ava_lineage_vector)).toEqual([{ load: runId, process: runId, sink: runId }]);

      const events: string[] = [];
      const run = flows.logging.run({ storage, executor: pool, runId: `log-${Date.now()}` });
      run.on((e) => {
        if (e.type === "log") events.push(`${e.slug}: ${e.line.message}`);
      });
      const result = await run.result();
      expect(result.value).toMatch(target.kind ?? /^(web-worker|worker-thread)$/);
      const logs = result.nodes.talk!.logs!;
      expect(logs.map((l) => [l.level, l.message])).toEqual([
        ["info", "starting"],
        ["warn", "line 0"],
        ["warn", "line 1"],
        ["debug", "kept: this logger's level is debug"],
      ]);
      expect(logs[0]!.fields).toEqual({ n: 2, big: "1180591620717411303424" });
      expect(events).toEqual(logs.map((l) => `talk: ${l.message}`));
      expect((await ava.getRun(storage, result.runId)).nodes.talk!.logs).toEqual(logs);

      const failed = (await expectAvaError(
        flows.loggingFailure.run({ storage, executor: pool }).result(),
        "RUN_FAILED",
      )) as ava.RunError;
      expect(failed.result.nodes.fail_loudly!.logs!.map((l) => l.message)).toEqual(["about to fail"]);
    });

    it("hands an AppendResult from one worker node to the next with its models", async () => {
      const storage = await target.storage();
      await (await flows.Docs.open({ storage })).push();
      const { value } = await flows.appendFlow.run({ storage, executor: pool }).result();
      expect(value).toEqual({
        model: { id: 7, text: "hello" },
        models: [{ id: 7, text: "hello" }],
        rows: 1,
        isResult: true,
      });
    });

    it("resolves streams inside the worker, and an AppendResult passed from a worker node", async () => {
      const storage = await target.storage();
      await (await flows.Docs.open({ storage })).push();
      const { value } = await flows.streamFlow.run({ storage, executor: pool }).result();
      expect(value).toEqual({ rows: 3, texts: ["p0", "p1", "p2"], slugs: ["produce"] });
      const passed = await flows.passthrough.run({ storage, executor: pool }).result();
      expect(passed.value).toMatchObject({ rows: 2, same: true }); // the stream is the AppendResult's own table
    });

    it("commits a worker node's appends only when it succeeds", async () => {
      const storage = await target.storage();
      const ns = await flows.Docs.open({ storage });
      await ns.push();
      await expectAvaError(
        flows.failingWriter.run({ storage, executor: pool }).result(),
        "RUN_FAILED",
        /failed after appending/,
      );
      expect((await ns.notes.read()).numRows).toBe(0);
      const { value } = await flows.bothTables.run({ storage, executor: pool }).result();
      expect((value as { a: ava.Snapshot }).a.sequenceNumber).toBe(1); // completed by the commit, in the worker
      expect((await ns.more.read()).numRows).toBe(1);
    });

    it("keeps an append_scan consumer exactly once when two runs race in two workers", async () => {
      const storage = await target.storage();
      const ns = await flows.Library.open({ storage });
      await ns.push();
      for (let i = 0; i < 12; i++) await ns.documents.append([{ doc_id: `d${i}`, text: `text of ${i}` }]);
      for (let round = 0; round < 60; round++) {
        if ((await ava.streamState(storage, flows.Library.tables.documents, "racing")).position === 12) break;
        await Promise.allSettled([
          flows.racing.run({ storage, executor: pool }).result(),
          flows.racing.run({ storage, executor: pool }).result(),
        ]);
      }
      expect((await ava.streamState(storage, flows.Library.tables.documents, "racing")).position).toBe(12);
      const keys = (await ns.chunks.scan({ columns: ["doc_id", "chunk"] }).toObjects()).map(
        (r) => `${r.doc_id}/${r.chunk}`,
      );
      expect(new Set(keys).size).toBe(keys.length); // no chunk twice
      expect(new Set(keys.map((k) => k.split("/")[0])).size).toBe(12); // every document
    });

    it("reruns part of a run in workers, streams reading the source run's rows", async () => {
      const storage = await target.storage();
      await (await flows.Pipeline.open({ storage })).push();
      const first = await flows.pipeline.run({ storage, executor: pool }).result();
      expect(first.value).toBe(12);
      const again = await flows.pipeline
        .run({
          storage,
          executor: pool,
          input: { factor: 10 },
          rerun: ava.rerun({ runId: first.runId, start: ["double"] }),
        })
        .result();
      expect(again.value).toBe(60);
      expect(again.nodes.load!.status).toBe("not_run");
    });

    // Only executors built from a worker pool option have it to refuse (BullMQ's workers are processes): the
    // others register no such test rather than a skipped one.
    const create = target.create;
    if (create)
      it("refuses a worker option that is not a function, and the retired module option", async () => {
        await expectAvaError(() => create({ worker: 42 }), "INVALID_ARGUMENT", /worker must be a function/);
        await expectAvaError(() => create({}), "INVALID_ARGUMENT", /got nothing/);
        await expectAvaError(
          () => create({ module: "./flow.js" }),
          "INVALID_ARGUMENT",
          /module.*retired.*serveWorkflows/,
        );
        const notAWorker = create({ worker: () => ({}), size: 1 });
        try {
          const err = (await expectAvaError(
            flows.math.run({ executor: notAWorker }).result(),
            "RUN_FAILED",
          )) as ava.RunError;
          expect(err.result.nodes.inc!.error).toMatchObject({ code: "INVALID_ARGUMENT" });
          expect(err.result.nodes.inc!.error!.message).toMatch(/worker\(\) must return a/);
        } finally {
          await notAWorker.close();
        }
      });

    it("fails a node whose workflow the worker entry does not serve, or builds differently", async () => {
      const narrow = target.narrowExecutor();
      try {
        expect((await flows.math.run({ executor: narrow }).result()).value).toBe(5);
        await expectNotServed(
          flows.diamond.run({ executor: narrow }),
          /serves no workflow named diamond \(it serves math, skipping\); /,
          target.toServeMore ?? /add it to serveWorkflows\(\.\.\.\)/,
        );
        const drift = (await expectAvaError(
          flows.skipping.run({ executor: narrow }).result(),
          "RUN_FAILED",
        )) as ava.RunError;
        expect(drift.result.nodes.maybe!.error).toMatchObject({ code: "NOT_FOUND" });
        expect(drift.result.nodes.maybe!.error!.message).toMatch(
          /worker's workflow skipping has no node maybe \(its nodes: inc\).*ava\.step\("name", fn\)/,
        );
      } finally {
        await narrow.close();
      }
    });

    it("refuses a workflow with an unnamed step before any worker runs it", async () => {
      const unnamed = ava.workflow({ name: "unnamed-in-workers" }, () => ava.step(async () => 1)());
      await expectAvaError(() => unnamed.run({ executor: pool }), "WORKFLOW_INVALID", /has no name/);
    });

    it("refuses memory storage inside a worker with a clear error", async () => {
      const err = (await expectAvaError(
        flows.notesFlow
          .run({ storage: ava.memoryStorage(), executor: pool, input: { prefix: "m" } })
          .result(),
        "RUN_FAILED",
      )) as ava.RunError;
      expect(err.result.nodes.write_notes!.error).toMatchObject({ code: "UNAVAILABLE" });
      expect(err.result.nodes.write_notes!.error!.message).toMatch(/another JS context/);
    });
  });
}
