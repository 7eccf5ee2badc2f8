// A Node program that uses the packed library as an app would, run under tsx and compiled; prints JSON.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import * as ava from "avalanche-web/node";
import { App, dashboardFlow } from "./flow.js";

const root = await mkdtemp(join(tmpdir(), "ava-consumer-node-"));
try {
  const storage = ava.nodeStorage({ root });
  await (await App.open({ storage })).push();
  const byUrl = ava.workerExecutor({ worker: new URL("./flow.worker.js", import.meta.url), size: 1 });
  const viaUrl = (await dashboardFlow.run({ storage, executor: byUrl }).result()).value;
  await byUrl.close();
  let viaFunction: unknown;
  const byFunction = ava.workerExecutor({
    worker: () => new Worker(new URL("./flow.worker.js", import.meta.url)),
    size: 1,
  });
  try {
    viaFunction = (await dashboardFlow.run({ storage, executor: byFunction }).result()).value;
  } catch (err) {
    viaFunction = { code: (err as ava.AvaError).code, message: (err as Error).message };
  } finally {
    await byFunction.close();
  }
  const rows = (await (await App.open({ storage })).runs.read()).numRows;
  console.log(JSON.stringify({ viaUrl, viaFunction, rows, main: import.meta.url }));
} finally {
  await rm(root, { recursive: true, force: true });
}
