// `ava.workerExecutor({ worker, size })` in the browser: a pool of Web Workers the app starts from its own
// worker entry (`new Worker(new URL("./flow.worker.ts", import.meta.url), { type: "module" })`), the
// pattern every bundler understands: the entry, its workflows and this library are bundled by the app,
// once, in the same module graph as the page. The entry calls `ava.serveWorkflows(...)`.
import { AvaError } from "../errors.js";
import type { Executor } from "./executor.js";
import { WorkerPool, type WorkerPort } from "./worker-pool.js";

export interface WorkerExecutorOptions {
  /**
   * Starts one worker on the app's worker entry, e.g.
   * `() => new Worker(new URL("./flow.worker.ts", import.meta.url), { type: "module" })`.
   */
  worker: () => Worker;
  /** Workers in the pool; default: the number of cores. */
  size?: number;
}

/** The refusal of options that are not `{ worker: () => Worker }`; `module:` was retired. */
export function checkWorkerOption(options: unknown, example: string): void {
  const given = options as { worker?: unknown; module?: unknown } | undefined;
  if (given?.module !== undefined && given.worker === undefined)
    throw new AvaError(
      "INVALID_ARGUMENT",
      `workerExecutor({ module }) was retired: write a worker entry that calls serveWorkflows(yourFlow) and pass { worker: ${example} }`,
    );
  if (typeof given?.worker !== "function")
    throw new AvaError(
      "INVALID_ARGUMENT",
      `workerExecutor: worker must be a function that starts a worker on your worker entry, e.g. { worker: ${example} }; got ${given?.worker === undefined ? "nothing" : typeof given.worker}`,
    );
}

function webWorkerPort(worker: Worker): WorkerPort {
  return {
    post: (message, transfer) => worker.postMessage(message, transfer),
    listen(onMessage, onDeath) {
      worker.addEventListener("message", (e) => onMessage(e.data));
      worker.addEventListener("error", (e) => {
        e.preventDefault();
        worker.terminate(); // an uncaught error leaves its node unsettled: the worker is done for
        onDeath(e.message || "an uncaught error (or its entry failed to load)");
      });
      worker.addEventListener("messageerror", () => {
        worker.terminate();
        onDeath("a message that could not be deserialized");
      });
    },
    terminate: () => worker.terminate(),
  };
}

function startWorker(worker: () => Worker): Worker {
  const started = worker();
  if (typeof started?.postMessage !== "function" || typeof started.addEventListener !== "function")
    throw new AvaError("INVALID_ARGUMENT", "workerExecutor: worker() must return a Worker");
  return started;
}

export function workerExecutor(options: WorkerExecutorOptions): Executor {
  checkWorkerOption(
    options,
    `() => new Worker(new URL("./flow.worker.ts", import.meta.url), { type: "module" })`,
  );
  if (typeof Worker === "undefined")
    throw new AvaError(
      "UNAVAILABLE",
      "Web Workers are not available here; in Node use workerExecutor from avalanche-web/node",
    );
  const { worker, size } = options;
  const poolSize = size ?? (globalThis.navigator?.hardwareConcurrency || 4);
  let pool: WorkerPool | undefined;
  return {
    kind: "web-worker",
    concurrency: poolSize,
    runNode({ storage, workflow }, task, signal, movable) {
      workflow.assertRunnable();
      pool ??= new WorkerPool(poolSize, () => webWorkerPort(startWorker(worker)));
      return pool.run(task, storage?.descriptor, signal, movable, workflow.tableModels);
    },
    async close() {
      pool?.close();
      pool = undefined;
    },
  };
}
