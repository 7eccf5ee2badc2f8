// Writes OPFS files for a page's main thread through a dedicated Worker holding a synchronous access handle.
// On the main thread the only writer is `createWritable`, which streams the bytes to a swap file and moves
// it into place on close, fed by the page's own tasks. For a live stream's 4 MB batches in a Chromium profile
// on disk, a sync access handle in a Worker took about half as long (a loaded machine; off the record, where
// OPFS is memory behind messages to the browser process, it gained nothing).
// The Worker is started from a Blob URL holding its few lines of source, so it ships with the library and
// works after any bundler without configuration. Where it cannot start (a Content-Security-Policy without
// `worker-src blob:`), or dies, the caller falls back to createWritable.
import { AvaError } from "../../errors.js";

/** The Worker's whole source; each request has a file of its own. It answers `{ id }`, `{ id, exists }` or `{ id, error }`. */
const SOURCE = `"use strict";
onmessage = async ({ data: { id, handle, bytes } }) => {
  let access;
  try {
    access = await handle.createSyncAccessHandle();
    if (access.getSize() > 0) return postMessage({ id, exists: true });
    const view = new Uint8Array(bytes);
    for (let at = 0; at < view.length; ) at += access.write(view.subarray(at), { at });
    access.flush();
    postMessage({ id });
  } catch (err) {
    postMessage({ id, error: { name: String(err && err.name), message: String(err && err.message) } });
  } finally {
    if (access) access.close();
  }
};`;

interface Reply {
  id: number;
  exists?: boolean;
  error?: { name: string; message: string };
}

/** What became of a write the Worker was asked for. */
export type WorkerWrite = "written" | "exists";

/** Files at least this big go through the Worker: below, a message round trip costs more than it saves. */
export const WORKER_WRITE_MIN_BYTES = 64 * 1024;

export class OpfsWriteWorker {
  #worker: Worker | undefined;
  /** The Worker answered once: it runs (an error before that means it could not load). */
  #answered = false;
  /** Set once the Worker could not start: every later write takes the caller's fallback. */
  #unavailable = false;
  #next = 0;
  /** Files this Worker wrote (what tests look at to know which path a write took). */
  written = 0;
  readonly #pending = new Map<number, { resolve: (r: WorkerWrite) => void; reject: (e: unknown) => void }>();

  /** Writes sent to the Worker and not answered yet. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Whether a Worker can take writes here (a page with Worker and Blob URLs, and it has not failed to start). */
  get available(): boolean {
    return (
      !this.#unavailable &&
      typeof Worker === "function" &&
      typeof URL.createObjectURL === "function" &&
      typeof Blob === "function"
    );
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const url = URL.createObjectURL(new Blob([SOURCE], { type: "text/javascript" }));
    let worker: Worker;
    try {
      worker = new Worker(url, { name: "avalanche-opfs-writer" });
    } catch (err) {
      this.#unavailable = true;
      throw err;
    } finally {
      URL.revokeObjectURL(url);
    }
    worker.onmessage = ({ data }: MessageEvent<Reply>) => {
      this.#answered = true;
      const waiter = this.#pending.get(data.id);
      if (!waiter) return;
      this.#pending.delete(data.id);
      if (data.error) {
        const err = new Error(data.error.message);
        err.name = data.error.name;
        waiter.reject(err);
      } else {
        if (!data.exists) this.written++;
        waiter.resolve(data.exists ? "exists" : "written");
      }
    };
    // A Worker that fails to load (a CSP refusing blob: Workers) or dies fails what it holds: the caller
    // removes the files it began, and later writes start a new Worker (or, failing to load, fall back).
    worker.onerror = (event) => {
      event.preventDefault();
      if (!this.#answered) this.#unavailable = true;
      this.#fail(
        new AvaError("IO_ERROR", `the OPFS writer Worker failed: ${event.message || "it did not start"}`),
      );
    };
    this.#worker = worker;
    return worker;
  }

  #fail(err: unknown): void {
    this.#worker?.terminate();
    this.#worker = undefined;
    const waiters = [...this.#pending.values()];
    this.#pending.clear();
    for (const w of waiters) w.reject(err);
  }

  /**
   * Writes `bytes` into the (new, empty) file behind `handle`, flushed before it resolves; "exists" when the
   * file already held bytes (left untouched). The bytes are copied: the caller keeps its own.
   */
  write(handle: FileSystemFileHandle, bytes: Uint8Array): Promise<WorkerWrite> {
    const worker = this.#start();
    const id = this.#next++;
    const copy = bytes.slice();
    return new Promise<WorkerWrite>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ id, handle, bytes: copy.buffer }, [copy.buffer]);
    });
  }

  /** Ends the Worker; writes it held fail (tests use this to kill a write midway). */
  terminate(): void {
    this.#fail(new AvaError("IO_ERROR", "the OPFS writer Worker was terminated"));
  }
}

let page: OpfsWriteWorker | undefined;

/** The writer Worker shared by every storage of this page (started at its first write). */
export function pageWriter(): OpfsWriteWorker {
  page ??= new OpfsWriteWorker();
  return page;
}
