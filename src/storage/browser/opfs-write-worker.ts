// Writes OPFS files for a page's main thread through a dedicated Worker holding a synchronous access handle.
// On the main thread the only writer is `createWritable`, which streams the bytes to a swap file and moves
// it into place on close, fed by the page's own tasks. For a live stream's 4 MB batches in a Chromium profile
// on disk, a sync access handle in a Worker took about half as long (a loaded machine; off the record, where
// OPFS is memory behind messages to the browser process, it gained nothing).
// The Worker is started from a Blob URL (blob-worker.ts), so it needs no bundler setup. Where it cannot
// start (a Content-Security-Policy without `worker-src blob:`), or dies, the caller falls back to
// createWritable.
import { BlobWorker, type WorkerReply } from "./blob-worker.js";

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

interface Reply extends WorkerReply {
  exists?: boolean;
}

/** What became of a write the Worker was asked for. */
export type WorkerWrite = "written" | "exists";

/** Files at least this big go through the Worker: below, a message round trip costs more than it saves. */
export const WORKER_WRITE_MIN_BYTES = 64 * 1024;

export class OpfsWriteWorker extends BlobWorker<Reply, WorkerWrite> {
  /** Files this Worker wrote (what tests look at to know which path a write took). */
  written = 0;

  constructor() {
    super(SOURCE, "avalanche-opfs-writer", "the OPFS writer");
  }

  protected resultOf(reply: Reply): WorkerWrite {
    if (reply.exists) return "exists";
    this.written++;
    return "written";
  }

  /**
   * Writes `bytes` into the (new, empty) file behind `handle`, flushed before it resolves; "exists" when the
   * file already held bytes (left untouched). A Worker that dies fails the write: the caller removes the
   * file it began and falls back.
   */
  write(handle: FileSystemFileHandle, bytes: Uint8Array): Promise<WorkerWrite> {
    return this.request({ handle }, bytes);
  }
}

let page: OpfsWriteWorker | undefined;

/** The writer Worker shared by every storage of this page (started at its first write). */
export function pageWriter(): OpfsWriteWorker {
  page ??= new OpfsWriteWorker();
  return page;
}
