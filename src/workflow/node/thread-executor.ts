// `workerExecutor({ module, size })` from avalanche-web/node: the same pool as the browser's, over
// worker_threads. Run from TypeScript sources (tests), a tiny .mjs bootstrap registers tsx first, since
// Node 20 cannot start a worker thread on a .ts file; the built package starts the compiled .js directly.
import { availableParallelism } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { Executor } from "../executor.js";
import type { WorkerExecutorOptions } from "../web-executor.js";
import { WorkerPool, type WorkerPort } from "../worker-pool.js";

function spawnThread(): Worker {
  // Script URLs are made apart from `new Worker(...)`: bundlers rewrite `new Worker(new URL(…))` into a
  // Web Worker bundle, and must leave this Node-only thread alone.
  if (import.meta.url.endsWith(".ts")) {
    const entry = new URL("./thread-entry.ts", import.meta.url).href;
    const bootstrap = new URL("./thread-bootstrap.mjs", import.meta.url);
    return new Worker(bootstrap, { workerData: { entry } });
  }
  const script = new URL("./thread-entry.js", import.meta.url);
  return new Worker(script);
}

function threadPort(worker: Worker): WorkerPort {
  return {
    post: (message, transfer) => worker.postMessage(message, transfer),
    listen(onMessage, onDeath) {
      let dead = false;
      const die = (reason: string) => {
        if (dead) return;
        dead = true;
        void worker.terminate();
        onDeath(reason);
      };
      worker.on("message", onMessage);
      worker.on("error", (err) => die(`${err.name}: ${err.message}`));
      worker.on("exit", (code) => die(`it exited with code ${code}`));
    },
    terminate: () => void worker.terminate(),
  };
}

/** A module path or URL as the URL a worker thread imports. */
function moduleUrl(module: string | URL): string {
  const text = String(module);
  if (/^[a-z][a-z0-9+.-]*:/i.test(text) && !/^[a-z]:[\\/]/i.test(text)) return text;
  return pathToFileURL(isAbsolute(text) ? text : resolve(text)).href;
}

export function workerExecutor({ module, size = availableParallelism() }: WorkerExecutorOptions): Executor {
  const url = moduleUrl(module);
  let pool: WorkerPool | undefined;
  return {
    concurrency: size,
    runNode({ storage, workflow }, task, signal, movable) {
      pool ??= new WorkerPool(size, () => threadPort(spawnThread()));
      return pool.run(url, task, storage?.descriptor, signal, movable, workflow.tableModels);
    },
    async close() {
      pool?.close();
      pool = undefined;
    },
  };
}
