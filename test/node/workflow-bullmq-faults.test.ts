// BullMQ under faults, with real processes: workers SIGKILLed in the middle of an append_scan consumer over
// 100 runs (BullMQ's stalled-job check reruns each killed node elsewhere; the catalog keeps every row exactly
// once), and Redis itself killed mid-run (typed errors, then the same executor and workers work again).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import * as ava from "../../src/node.js";
import { expectAvaError } from "../shared/fixtures.js";
import { copying, Feed } from "./fixtures/bullmq-extra-flows.js";
import { startWorkers, type WorkerGroup } from "./fixtures/bullmq-workers.js";
import { startRedis } from "./fixtures/redis-server.js";

const MODULE = join(import.meta.dirname, "fixtures", "bullmq-flows.ts");
const redis = await startRedis();
let workers: WorkerGroup;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ava-bull-faults-"));
  workers = await startWorkers(3, {
    redis: redis.url,
    queue: "faults",
    module: MODULE,
    // a killed job is rerun within about three seconds; a rerun that lands on a worker still starting up
    // (tsx compiling on a busy machine) may stall once more
    extra: ["--lock-ms", "2000", "--stalled-ms", "500", "--max-stalled", "2"],
  });
}, 120_000);

afterAll(async () => {
  await workers?.stop();
  await redis.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Every event copied, none twice: the copies are the events. */
async function expectExactlyOnce(ns: Awaited<ReturnType<typeof Feed.open>>, events: number) {
  const ids = (await ns.copies.scan({ columns: ["id"] }).toObjects())
    .map((r) => r.id as number)
    .sort((a, b) => a - b);
  expect(ids.length).toBe(events);
  expect(ids).toEqual(Array.from({ length: events }, (_, i) => i));
}

it("keeps every row exactly once over 100 runs while workers are SIGKILLed mid-step", async () => {
  const storage = ava.nodeStorage({ root: join(dir, "kill"), fsync: false });
  const ns = await Feed.open({ storage });
  await ns.push();
  const executor = ava.bullmqExecutor({ connection: redis.url, queue: "faults" });
  let events = 0;
  let kills = 0;
  try {
    for (let run = 0; run < 100; run++) {
      await ns.events.append([0, 1, 2].map(() => ({ id: events++ })));
      const handle = copying.run({ storage, executor, input: { ms: 25 } });
      if (run % 17 === 3) {
        // kill the process running the node: before its commit, or (later delays) after it
        const delay = (run * 13) % 60;
        let killed = false; // the first attempt only: the rerun elsewhere must be left to finish
        handle.on((e) => {
          if (killed || e.type !== "log" || e.line.message !== "started") return;
          killed = true;
          const pid = e.line.fields?.pid as number;
          setTimeout(() => {
            kills++;
            void workers.kill(pid);
          }, delay);
        });
      }
      const result = await handle.result();
      expect(result.status).toBe("success");
    }
    // what killed runs left pending is taken by the runs that follow; drain the rest
    for (let i = 0; i < 20; i++) {
      const state = await ava.streamState(storage, Feed.tables.events, "copier");
      if (state.position === 100) break;
      await copying.run({ storage, executor, input: { ms: 0 } }).result();
    }
    expect((await ava.streamState(storage, Feed.tables.events, "copier")).position).toBe(100);
    expect(kills).toBe(6);
    await expectExactlyOnce(ns, events);
  } finally {
    await executor.close();
  }
  await workers.settled();
}, 150_000);

it("fails runs with typed errors while Redis is down, then works again once it is back", async () => {
  const storage = ava.nodeStorage({ root: join(dir, "restart"), fsync: false });
  const ns = await Feed.open({ storage });
  await ns.push();
  await ns.events.append([{ id: 0 }, { id: 1 }]);
  const executor = ava.bullmqExecutor({ connection: redis.url, queue: "faults", connectTimeoutMs: 1000 });
  try {
    const handle = copying.run({ storage, executor, input: { ms: 1500 } });
    handle.on((e) => {
      if (e.type === "log" && e.line.message === "started") void redis.stop(true);
    });
    const err = (await expectAvaError(handle.result(), "RUN_FAILED")) as ava.RunError;
    expect(err.result.nodes.copy_events!.error).toMatchObject({ code: "UNAVAILABLE" });
    expect(err.result.nodes.copy_events!.error!.message).toMatch(
      /redis at 127\.0\.0\.1:\d+ \(queue faults\)/,
    );

    // while it is down, a run fails at once with the same code
    const down = (await expectAvaError(
      copying.run({ storage, executor, input: { ms: 0 } }).result(),
      "RUN_FAILED",
    )) as ava.RunError;
    expect(down.result.nodes.copy_events!.error).toMatchObject({ code: "UNAVAILABLE" });

    await redis.start(); // empty: the queue's state is gone, the tables are not
    await ns.events.append([{ id: 2 }]);
    let result: ava.RunResult | undefined;
    const t0 = Date.now();
    while (!result && Date.now() - t0 < 30_000) {
      try {
        result = await copying.run({ storage, executor, input: { ms: 0 } }).result();
      } catch (e) {
        // until the clients have reconnected: the same typed error; or, when the node cut off from Redis
        // was still running in its worker and committed first, the consumer's COMMIT_CONFLICT
        expect(["UNAVAILABLE", "COMMIT_CONFLICT"]).toContain(
          (e as ava.RunError).result.nodes.copy_events!.error!.code,
        );
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    expect(result?.status).toBe("success");
    for (let i = 0; i < 5; i++) {
      if ((await ava.streamState(storage, Feed.tables.events, "copier")).position === 2) break;
      await copying.run({ storage, executor, input: { ms: 0 } }).result();
    }
    expect((await ava.streamState(storage, Feed.tables.events, "copier")).position).toBe(2);
    await expectExactlyOnce(ns, 3); // the node cut off from Redis committed or did not: either way, once
  } finally {
    await executor.close();
  }
}, 90_000);
