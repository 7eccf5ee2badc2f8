// Writes the IndexedDB catalog's checkpoints from a dedicated helper Worker, off the appender's thread.
// Measured in a Chromium Worker (bench maintenance, variants): a checkpoint put of a 0.3–0.6 MB state
// blocked the putting thread far beyond its own few milliseconds (Chromium serializes the value, and wraps
// one past 64 KB as a Blob, on the thread that puts it): without the puts one sequential appender ran
// 1.15–1.44× faster, with less thread-blocked time; from this Worker, 1.12× (see the bench's variants).
// A checkpoint only speeds up opening (the log is the truth), so where it is written from changes no
// guarantee: the put is one readwrite transaction of its own, whole or absent, as before.
// The Worker is started from a Blob URL (blob-worker.ts), so it needs no bundler setup. Where it cannot
// start (a Content-Security-Policy without `worker-src blob:`), dies, or cannot open the database, the
// caller puts the checkpoint itself.
import { BlobWorker, type WorkerReply } from "./blob-worker.js";

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

export class CheckpointPutWorker extends BlobWorker<WorkerReply, void> {
  /** Checkpoints this Worker wrote (what tests look at to know which way a put took). */
  written = 0;

  constructor() {
    super(SOURCE, "avalanche-checkpoint-writer", "the checkpoint writer");
  }

  protected resultOf(): void {
    this.written++;
  }

  /**
   * Puts `bytes` under `key` in `store` of the IndexedDB database `db` (which must exist), resolved once
   * its transaction completed. Rejected when the Worker cannot do it: the caller then puts it itself.
   */
  put(db: string, store: string, key: IDBValidKey, bytes: Uint8Array): Promise<void> {
    return this.request({ db, store, key }, bytes);
  }
}

let shared: CheckpointPutWorker | undefined;

/** The checkpoint writer Worker shared by every browser storage of this context (started at its first put). */
export function checkpointWriter(): CheckpointPutWorker {
  shared ??= new CheckpointPutWorker();
  return shared;
}
