// `workerExecutor({ worker, size })` from avalanche-web/node: the browser's pool over worker_threads. The app
// owns the thread's entry (it calls `serveWorkflows(...)` from avalanche-web/node), as in the browser.
// `worker` is a function starting the thread, or the entry's URL: then the library starts it, and a
// TypeScript entry (or the `.ts` beside a `.js` that is not there, as under `tsx`) runs through tsx, since
// Node 20 cannot start a worker thread on a `.ts` file, even with `--import tsx`.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { AvaError } from "../../errors.js";
import type { Executor } from "../executor.js";
import { checkWorkerOption } from "../web-executor.js";
import { WorkerPool, type WorkerPort } from "../worker-pool.js";

export interface ThreadExecutorOptions {
  /**
   * The app's worker entry: its URL or path (`new URL("./flow.worker.js", import.meta.url)`, which also
   * works under tsx), or a function starting the thread (`() => new Worker(new URL(...))`).
   */
  worker: (() => Worker) | URL | string;
  /** Threads in the pool; default: `os.availableParallelism()`. */
  size?: number;
}

const EXAMPLE = `() => new Worker(new URL("./flow.worker.js", import.meta.url)), or the entry's URL`;

/** A worker entry's path or URL as a file URL. */
function entryUrl(entry: URL | string): URL {
  const text = String(entry);
  if (/^file:/i.test(text)) return new URL(text);
  if (/^[a-z][a-z0-9+.-]*:/i.test(text) && !/^[a-z]:[\\/]/i.test(text))
    throw new AvaError("INVALID_ARGUMENT", `workerExecutor: a worker thread starts from a file, not ${text}`);
  return pathToFileURL(isAbsolute(text) ? text : resolve(text));
}

/** Where the entry is: the file itself, or the `.ts` source of a `.js` that is not there (run under tsx). */
function locate(url: URL): { url: URL; typescript: boolean } {
  const path = fileURLToPath(url);
  const typescript = /\.[mc]?ts$/.test(path);
  if (existsSync(path)) return { url, typescript };
  const source = path.replace(/\.([mc]?)js$/, ".$1ts");
  if (source !== path && existsSync(source)) return { url: pathToFileURL(source), typescript: true };
  throw new AvaError("NOT_FOUND", `workerExecutor: no worker entry at ${path}`);
}

// Runs in the thread (eval'd, so it needs no file of its own): tsx's hooks first, then the entry.
const TSX_BOOTSTRAP = `
const { workerData } = require("node:worker_threads");
import(workerData.tsx).then((tsx) => { tsx.register(); return import(workerData.entry); });
`;

/** The URL of tsx's ESM API (`register()`), found from the entry as the app's own import would find it. */
function tsxApi(from: URL): string {
  const manifest = createRequire(from).resolve("tsx/package.json");
  const exports = JSON.parse(readFileSync(manifest, "utf8")).exports?.["./esm/api"];
  const target = exports?.import?.default ?? exports?.import;
  if (typeof target !== "string") throw new Error(`tsx at ${manifest} has no ESM API`);
  return pathToFileURL(join(dirname(manifest), target)).href;
}

/** Starts a thread on a worker entry, a TypeScript one through the tsx the app has installed. */
function threadOn(entry: URL | string): () => Worker {
  const { url, typescript } = locate(entryUrl(entry));
  if (!typescript) return () => new Worker(url);
  let tsx: string;
  try {
    tsx = tsxApi(url);
  } catch (err) {
    throw new AvaError(
      "UNAVAILABLE",
      `workerExecutor: the worker entry ${fileURLToPath(url)} is TypeScript; install tsx, or start the compiled .js`,
      { cause: err },
    );
  }
  return () => new Worker(TSX_BOOTSTRAP, { eval: true, workerData: { tsx, entry: url.href } });
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
      worker.on("error", (err) => die(`${err.name}: ${err.message}${hint(err)}`));
      worker.on("exit", (code) => die(`it exited with code ${code}`));
    },
    terminate: () => void worker.terminate(),
  };
}

/** What to do when a thread's entry could not load because it is TypeScript. */
function hint(err: Error): string {
  return /Unknown file extension "\.ts"|Cannot find module .*\.js/.test(err.message)
    ? ` (a TypeScript entry under tsx: pass its URL, { worker: new URL("./flow.worker.js", import.meta.url) }, and the library starts it through tsx)`
    : "";
}

function startThread(worker: () => Worker): Worker {
  const started = worker();
  if (!(started instanceof Worker))
    throw new AvaError("INVALID_ARGUMENT", "workerExecutor: worker() must return a worker_threads Worker");
  return started;
}

/** How threads start: on the entry at a URL or path, or by the app's own function. */
function spawner(options: ThreadExecutorOptions): () => Worker {
  const worker = (options as { worker?: unknown } | undefined)?.worker;
  if (worker instanceof URL || typeof worker === "string") return threadOn(worker);
  checkWorkerOption(options, EXAMPLE);
  return worker as () => Worker;
}

export function workerExecutor(options: ThreadExecutorOptions): Executor {
  const spawn = spawner(options);
  const size = options.size ?? availableParallelism();
  let pool: WorkerPool | undefined;
  return {
    kind: "worker-thread",
    concurrency: size,
    runNode({ storage, workflow }, task, signal, movable) {
      workflow.assertRunnable();
      pool ??= new WorkerPool(size, () => threadPort(startThread(spawn)));
      return pool.run(task, storage?.descriptor, signal, movable, workflow.tableModels);
    },
    async close() {
      pool?.close();
      pool = undefined;
    },
  };
}
