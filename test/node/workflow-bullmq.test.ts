// The workflow engine on BullMQ: the shared executor suite with real Redis and three real worker processes
// (`avalanche-web worker`) serving one queue, plus what only a distributed executor has: values by reference
// through the run's storage, per-step retries, cancellation across processes, and its option errors.
import { spawnSync } from "node:child_process";
import { getEventListeners } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as ava from "../../src/node.js";
import { bullmqExecutor, nodeStorage } from "../../src/node.js";
import { expectAvaError } from "../shared/fixtures.js";
import { describeExecutor, expectNotServed } from "../shared/workflow-executors.js";
import * as flows from "../shared/workflow-flows.js";
import { startWorkers, type WorkerGroup } from "./fixtures/bullmq-workers.js";
import { bigValues, retrying } from "./fixtures/bullmq-extra-flows.js";
import { startRedis } from "./fixtures/redis-server.js";

const FIXTURES = join(import.meta.dirname, "fixtures");
const MAIN = join(import.meta.dirname, "..", "..", "src", "cli", "main.ts");
// Fast stall recovery: a dead worker's job is rerun within about two seconds.
const STALL = ["--lock-ms", "2000", "--stalled-ms", "500"];

const redis = await startRedis();
const dirs: string[] = [];
let suite: WorkerGroup;
let narrow: WorkerGroup;

beforeAll(async () => {
  [suite, narrow] = await Promise.all([
    startWorkers(3, {
      redis: redis.url,
      queue: "suite",
      module: join(FIXTURES, "bullmq-flows.ts"),
      extra: STALL,
    }),
    startWorkers(1, {
      redis: redis.url,
      queue: "narrow",
      module: join(FIXTURES, "bullmq-math-only.ts"),
      extra: STALL,
    }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([suite?.stop(), narrow?.stop()]);
  await redis.stop();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function tempStorage(): Promise<ava.Storage> {
  const dir = await mkdtemp(join(tmpdir(), "ava-bull-"));
  dirs.push(dir);
  return nodeStorage({ root: dir, fsync: false });
}

describeExecutor("bullmq", {
  executor: (size) => bullmqExecutor({ connection: redis.url, queue: "suite", concurrency: size }),
  narrowExecutor: () => bullmqExecutor({ connection: redis.url, queue: "narrow", concurrency: 1 }),
  kind: /^bullmq$/,
  // the narrow workers are `avalanche-web worker` processes: their user edits the module, not an API call
  toServeMore:
    /export it from the module given with --module \(.*bullmq-math-only\.ts\) and restart this worker$/,
  storage: tempStorage,
});

describe("bullmqExecutor beyond the suite", () => {
  const executor = bullmqExecutor({ connection: redis.url, queue: "suite", maxValueBytes: 4000 });
  afterAll(() => executor.close());

  it("passes values over maxValueBytes by reference through the run's storage, and refuses them without one", async () => {
    const storage = await tempStorage();
    const { value } = await bigValues.run({ storage, executor, input: { rows: 2000 } }).result();
    expect(value!.table.numRows).toBe(2000);
    expect(value!.table.getChild("text")!.get(1999)).toBe("row number 1999");
    expect(value!.summary).toEqual({ rows: 2000, last: "row number 1999" }); // the table went in by reference too
    expect(await storage.files.list("values/")).toEqual([]); // each reference read once and deleted

    const small = await bigValues.run({ executor, input: { rows: 3 } }).result();
    expect(small.value!.summary.rows).toBe(3); // small enough for Redis: no storage needed
    const err = (await expectAvaError(
      bigValues.run({ executor, input: { rows: 2000 } }).result(),
      "RUN_FAILED",
    )) as ava.RunError;
    expect(err.result.nodes.make_table!.error).toMatchObject({ code: "TOO_LARGE" });
    expect(err.result.nodes.make_table!.error!.message).toMatch(
      /node make_table, result: \d+ bytes as JSON, over maxValueBytes \(4000\).*give the run a storage/,
    );
  });

  it("retries a failing step as its options say, in any worker", async () => {
    const dir = await mkdtemp(join(tmpdir(), "ava-bull-"));
    dirs.push(dir);
    const retries = bullmqExecutor({
      connection: redis.url,
      queue: "suite",
      steps: { flaky_step: { attempts: 3, backoff: 50 } },
    });
    try {
      const input = { file: join(dir, "a"), succeedOn: 3 };
      expect((await retrying.run({ executor: retries, input }).result()).value).toBe(3);
    } finally {
      await retries.close();
    }
    const once = (await expectAvaError(
      retrying.run({ executor, input: { file: join(dir, "b"), succeedOn: 3 } }).result(),
      "RUN_FAILED",
    )) as ava.RunError;
    expect(once.result.nodes.flaky_step!.error!.message).toMatch(/attempt 1 failed on purpose/);
    expect(once.result.nodes.flaky_step!.error!.stack).toMatch(/flaky_step/);
  });

  it("keeps one abort listener on a run's signal however many of its nodes wait, and none once it ends", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on("warning", onWarning);
    try {
      // about 50 of the 200 nodes are ready at once, all queued together (concurrency 64)
      const handle = flows.randomDag.run({ executor });
      let most = 0;
      const sample = setInterval(() => {
        most = Math.max(most, getEventListeners(handle.signal, "abort").length);
      }, 1);
      const result = await handle.result().finally(() => clearInterval(sample));
      expect(result.value).toEqual(flows.randomDagReference());
      expect(most).toBe(1);
      expect(getEventListeners(handle.signal, "abort")).toEqual([]);
      await new Promise((r) => setImmediate(r)); // process warnings are emitted on a later tick
      expect(warnings.filter((w) => w.includes("MaxListenersExceeded"))).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("a serveBullmq worker lacking a run's workflow says to pass it in serveBullmq({ workflows })", async () => {
    const worker = ava.serveBullmq({ connection: redis.url, queue: "api-narrow", workflows: [flows.math] });
    const narrow = bullmqExecutor({ connection: redis.url, queue: "api-narrow" });
    try {
      await worker.ready;
      await expectNotServed(
        flows.diamond.run({ executor: narrow }),
        /serves no workflow named diamond \(it serves math\); /,
        /pass it in serveBullmq\(\{ workflows \}\) and restart this worker$/,
      );
    } finally {
      await narrow.close();
      await worker.close();
    }
  });

  it("refuses bad options, and says which Redis it cannot reach", async () => {
    await expectAvaError(
      () => bullmqExecutor({ connection: 42 as never, queue: "q" }),
      "INVALID_ARGUMENT",
      /connection must be a redis:\/\/ URL or \{ host, port/,
    );
    await expectAvaError(
      () => bullmqExecutor({ connection: "http://127.0.0.1:6379", queue: "q" }),
      "INVALID_ARGUMENT",
      /not a redis:\/\/ or rediss:\/\/ URL/,
    );
    await expectAvaError(
      () => bullmqExecutor({ connection: redis.url, queue: "a:b" }),
      "INVALID_ARGUMENT",
      /queue must be a name/,
    );
    await expectAvaError(
      () => bullmqExecutor({ connection: redis.url, queue: "q", steps: { x: { attempts: 0 } } }),
      "INVALID_ARGUMENT",
      /steps\.x: attempts must be a positive integer/,
    );
    await expectAvaError(
      () => ava.serveBullmq({ connection: redis.url, queue: "q", workflows: [] }),
      "INVALID_ARGUMENT",
      /pass the workflows/,
    );
    const nowhere = bullmqExecutor({ connection: "redis://127.0.0.1:1", queue: "q", connectTimeoutMs: 1500 });
    try {
      const err = (await expectAvaError(
        flows.math.run({ executor: nowhere }).result(),
        "RUN_FAILED",
      )) as ava.RunError;
      expect(err.result.nodes.inc!.error).toMatchObject({ code: "UNAVAILABLE" });
      expect(err.result.nodes.inc!.error!.message).toMatch(/redis at 127\.0\.0\.1:1 \(queue q\)/);
    } finally {
      await nowhere.close();
    }
  });

  it("the worker command refuses a missing queue, a missing module and a module without workflows", () => {
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, ["--import", "tsx", MAIN, "worker", "--redis", redis.url, ...args], {
        encoding: "utf8",
      });
    const noQueue = cli("--module", join(FIXTURES, "bullmq-flows.ts"));
    expect(noQueue.status).toBe(2);
    expect(noQueue.stderr).toMatch(/worker: which queue\? \(--queue Q\)/);
    const missing = cli("--queue", "q", "--module", join(FIXTURES, "no-such-flows.js"));
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^avalanche-web: workflow module .*no-such-flows\.js does not exist\n$/);
    const empty = cli("--queue", "q", "--module", join(FIXTURES, "redis-server.ts"));
    expect(empty.status).toBe(2);
    expect(empty.stderr).toMatch(/worker: module .*redis-server\.ts exports no workflow/);
  }, 60_000);
});
