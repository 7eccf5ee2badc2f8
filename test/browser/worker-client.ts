// Starts rel-writer Workers from a test page and waits for their messages.
import type { WriterRequest } from "./workers/rel-writer.worker.js";

export type WriterMessage = {
  committed?: number;
  done?: boolean;
  error?: string;
  written?: string;
  snapshots?: number;
  rows?: number;
  batches?: number;
};

export function startWriter(): Worker {
  return new Worker(new URL("./workers/rel-writer.worker.ts", import.meta.url), { type: "module" });
}

/** Sends a request and resolves with the first message that satisfies `until` (rejects on an error message). */
export function request(
  worker: Worker,
  req: WriterRequest,
  until: (m: WriterMessage) => boolean,
): Promise<WriterMessage> {
  return new Promise((resolve, reject) => {
    worker.onmessage = (e: MessageEvent<WriterMessage>) => {
      if (e.data.error) reject(new Error(e.data.error));
      else if (until(e.data)) resolve(e.data);
    };
    worker.onerror = (e) => reject(new Error(e.message));
    worker.postMessage(req);
  });
}
