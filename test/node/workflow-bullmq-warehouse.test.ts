// An `avalanche-web worker` process runs a run's node against a warehouse storage (S3 on s3rver, the catalog
// in Postgres): the worker reopens the storage from the descriptor the job carries, with its own
// connections, and the append_scan consumer's rows and stream progress commit once.
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import * as ava from "../../src/node.js";
import { copying, Feed } from "./fixtures/bullmq-extra-flows.js";
import { startWorkers, type WorkerGroup } from "./fixtures/bullmq-workers.js";
import { startRedis } from "./fixtures/redis-server.js";
import { openWarehouse, useWarehouseServers } from "./fixtures/warehouse-servers.js";

const MODULE = join(import.meta.dirname, "fixtures", "bullmq-flows.ts");
const servers = useWarehouseServers();
const redis = await startRedis();
let workers: WorkerGroup;

beforeAll(async () => {
  workers = await startWorkers(1, { redis: redis.url, queue: "warehouse", module: MODULE });
}, 120_000);

afterAll(async () => {
  await workers?.stop();
  await redis.stop();
});

it("a worker process reopens the run's warehouse storage and commits the consumer's rows exactly once", async () => {
  const storage = openWarehouse(servers.location());
  const ns = await Feed.open({ storage });
  await ns.push();
  await ns.events.append(Array.from({ length: 5 }, (_, id) => ({ id })));
  const executor = ava.bullmqExecutor({ connection: redis.url, queue: "warehouse" });
  try {
    const pids: number[] = [];
    const handle = copying.run({ storage, executor, input: { ms: 0 } });
    handle.on((e) => {
      if (e.type === "log" && e.line.message === "started") pids.push(e.line.fields?.pid as number);
    });
    expect((await handle.result()).value).toBe(5);
    expect(pids).toEqual(workers.pids()); // the node ran in the worker process, not here
    // nothing left to consume: a second run copies nothing
    expect((await copying.run({ storage, executor, input: { ms: 0 } }).result()).value).toBe(0);
  } finally {
    await executor.close();
  }
  // read through a fresh instance, as another machine would
  const fresh = await Feed.open({ storage: openWarehouse(storage.descriptor as ava.WarehouseDescriptor) });
  const ids = (await fresh.copies.scan({ columns: ["id"] }).toObjects()).map((r) => r.id as number);
  expect(ids.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4]);
  expect(await fresh.copies.history()).toHaveLength(1);
  expect((await ava.streamState(storage, Feed.tables.events, "copier")).position).toBe(1);
}, 120_000);
