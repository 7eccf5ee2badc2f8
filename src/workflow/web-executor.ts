// `ava.workerExecutor({ module, size })` in the browser: a pool of module Web Workers, each importing the
// workflow module by URL and running nodes by slug.
import { AvaError } from "../errors.js";
import type { Executor } from "./executor.js";
import { WorkerPool, type WorkerPort } from "./worker-pool.js";

export interface WorkerExecutorOptions {
  /** The URL of the module that defines (and exports) the workflow, e.g. `new URL("./flow.ts", import.meta.url)`. */
  module: string | URL;
  /** Workers in the pool; default: the number of cores. */
  size?: number;
}

function webWorkerPort(worker: Worker): WorkerPort {
  return {
    post: (message, transfer) => worker.postMessage(message, transfer),
    listen(onMessage, onDeath) {
      worker.addEventListener("message", (e) => onMessage(e.data));
      worker.addEventListener("error", (e) => {
        e.preventDefault();
        worker.terminate(); // an uncaught error leaves its node unsettled: the worker is done for
        onDeath(e.message || "an uncaught error");
      });
      worker.addEventListener("messageerror", () => {
        worker.terminate();
        onDeath("a message that could not be deserialized");
      });
    },
    terminate: () => worker.terminate(),
  };
}

export function workerExecutor({ module, size }: WorkerExecutorOptions): Executor {
  if (typeof Worker === "undefined")
    throw new AvaError(
      "UNAVAILABLE",
      "Web Workers are not available here; in Node use workerExecutor from avalanche-web/node",
    );
  const url = String(module);
  const poolSize = size ?? (globalThis.navigator?.hardwareConcurrency || 4);
  let pool: WorkerPool | undefined;
  return {
    concurrency: poolSize,
    runNode({ storage, workflow }, task, signal, movable) {
      pool ??= new WorkerPool(poolSize, () =>
        webWorkerPort(new Worker(new URL("./web-worker.js", import.meta.url), { type: "module" })),
      );
      return pool.run(url, task, storage?.descriptor, signal, movable, workflow.tableModels);
    },
    async close() {
      pool?.close();
      pool = undefined;
    },
  };
}
