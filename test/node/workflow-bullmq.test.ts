// The workflow engine on BullMQ: the shared executor suite with real Redis and three real worker processes
// (`avalanche-web worker`) serving one queue, plus what only a distributed executor has: values by reference
// through the run's storage, per-step retries, cancellation across processes, and its option errors.
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as A from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as ava from "../../src/node.js";
import { bullmqExecutor, nodeStorage } from "../../src/node.js";
import { expectAvaError } from "../shared/fixtures.js";
import { describeExecutor } from "../shared/workflow-executors.js";
import * as flows from "../shared/workflow-flows.js";
import { startWorkers, type WorkerGroup } from "./fixtures/bullmq-workers.js";
import { startRedis } from "./fixtures/redis-server.js";

const FIXTURES = join(import.meta.dirname, "fixtures");
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
  storage: tempStorage,
});
