// Writes the IndexedDB catalog's checkpoints from a dedicated helper Worker, off the appender's thread.
// Measured in a Chromium Worker (bench maintenance, variants): a checkpoint put of a 0.3–0.6 MB state
// blocked the putting thread far beyond its own few milliseconds (Chromium serializes the value, and wraps
// one past 64 KB as a Blob, on the thread that puts it): without the puts one sequential appender ran
// 1.15–1.44× faster, with less thread-blocked time; from this Worker, 1.12× (see the bench's variants).
// A checkpoint only speeds up opening (the log is the truth), so where it is written from changes no
// guarantee: the put is one readwrite transaction of its own, whole or absent, as before.
// The Worker is started from a Blob URL holding its few lines of source, so it ships with the library and
// works after any bundler without configuration. Where it cannot start (a Content-Security-Policy without
// `worker-src blob:`), dies, or cannot open the database, the caller puts the checkpoint itself.
import { AvaError } from "../../errors.js";

/**
 * The Worker's whole source. It opens each database by name at its current version (never creating or
 * upgrading one: that is the catalog's own connection's work), closes it when another context wants to
 * upgrade or delete it, and answers `{ id }` once the put's transaction completed, or `{ id, error }`.
 */
const SOURCE = `"use strict";
const open = new Map();
function connect(name) {
  let db = open.get(name);
  if (!db) {
    db = new Promise((resolve, reject) => {
      const req = indexedDB.open(name);
      req.onupgradeneeded = () => req.transaction.abort();
      req.onsuccess = () => {
        const d = req.result;
        d.onversionchange = () => { d.close(); open.delete(name); };
        resolve(d);
      };
      req.onerror = () => reject(req.error);
    });
    db.catch(() => open.delete(name));
    open.set(name, db);
  }
  return db;
}
onmessage = async ({ data: { id, db, store, key, bytes } }) => {
  try {
    const d = await connect(db);
    await new Promise((resolve, reject) => {
      const tx = d.transaction(store, "readwrite");
      tx.objectStore(store).put(new Uint8Array(bytes), key);
      tx.oncomplete = resolve;
      tx.onabort = () => reject(tx.error || new DOMException("the transaction was aborted", "AbortError"));
    });
    postMessage({ id });
  } catch (err) {
    postMessage({ id, error: { name: String(err && err.name), message: String(err && err.message) } });
  }
};`;

interface Reply {
  id: number;
  error?: { name: string; message: string };
}

export class CheckpointPutWorker {
  #worker: Worker | undefined;
  /** This Worker answered once: it runs (an error before that means it could not load). */
  #answered = false;
  /** Set once the Worker could not start: every later put takes the caller's own way. */
  #unavailable = false;
  #next = 0;
  /** Checkpoints this Worker wrote (what tests look at to know which way a put took). */
  written = 0;
  readonly #pending = new Map<number, { resolve: () => void; reject: (e: unknown) => void }>();

  /** Puts sent to the Worker and not answered yet. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Whether a Worker can take puts here (Worker and Blob URLs exist, and it has not failed to start). */
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
      worker = new Worker(url, { name: "avalanche-checkpoint-writer" });
    } catch (err) {
      this.#unavailable = true;
      throw err;
    } finally {
      URL.revokeObjectURL(url);
    }
    this.#answered = false; // a Worker started after one died can still fail to load
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
        this.written++;
        waiter.resolve();
      }
    };
    // A Worker that fails to load (a CSP refusing blob: Workers) or dies fails what it holds: the caller
    // puts those itself, and later puts start a new Worker (or, failing to load, stay on the caller).
    worker.onerror = (event) => {
      event.preventDefault();
      if (!this.#answered) this.#unavailable = true;
      this.#fail(
        new AvaError(
          "IO_ERROR",
          `the checkpoint writer Worker failed: ${event.message || "it did not start"}`,
        ),
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
   * Puts `bytes` under `key` in `store` of the IndexedDB database `db` (which must exist), resolved once
   * its transaction completed. The bytes are copied: the caller keeps its own. A Worker that cannot be
   * constructed rejects it (as one that fails to load does).
   */
  async put(db: string, store: string, key: IDBValidKey, bytes: Uint8Array): Promise<void> {
    const worker = this.#start();
    const id = this.#next++;
    const copy = bytes.slice();
    return new Promise<void>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ id, db, store, key, bytes: copy.buffer }, [copy.buffer]);
    });
  }

  /** Ends the Worker; puts it held fail (tests use this to kill a put midway). */
  terminate(): void {
    this.#fail(new AvaError("IO_ERROR", "the checkpoint writer Worker was terminated"));
  }
}

let shared: CheckpointPutWorker | undefined;

/** The checkpoint writer Worker shared by every browser storage of this context (started at its first put). */
export function checkpointWriter(): CheckpointPutWorker {
  shared ??= new CheckpointPutWorker();
  return shared;
}
