// A node:http request body for toNodeListener, readable two ways: as the Request's web stream (started
// only when first pulled, so nothing flows into it unless a handler reads it) or, through
// direct-body.ts, whole into one buffer of the declared Content-Length. For a multi-megabyte live batch
// the direct way skips a web-stream round trip per 64 KiB chunk and the copy that joins the chunks.
import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { concatBytes } from "../util/bytes.js";
import { BufferPool } from "../util/buffer-pool.js";
import type { DirectBody, DirectBodyReader } from "./direct-body.js";

/** Request bodies read the direct way and released by their handler, for the next requests (per process). */
const bodies = new BufferPool(32 * 1024 * 1024);

export function nodeBody(req: IncomingMessage): {
  stream: ReadableStream<Uint8Array>;
  direct: DirectBodyReader;
} {
  let taken: "stream" | "direct" | undefined;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        taken ??= "stream";
        reader ??= (Readable.toWeb(req) as ReadableStream<Uint8Array>).getReader();
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => (reader ? reader.cancel(reason) : void req.destroy()),
    },
    { highWaterMark: 0 }, // no pull before a reader asks
  );
  const direct: DirectBodyReader = (limit) => {
    if (taken === "stream") return Promise.resolve(null);
    taken = "direct";
    return readWhole(req, limit);
  };
  return { stream, direct };
}

/**
 * Every chunk into one buffer of the declared length; if the client sends more than it declared (or
 * declared nothing), the chunks are kept and joined instead. Past `limit` reading stops and the answer is
 * `undefined`.
 */
function readWhole(req: IncomingMessage, limit: number): Promise<DirectBody | undefined> {
  const declared = Number(req.headers["content-length"]);
  const pooled =
    Number.isSafeInteger(declared) && declared >= 0 && declared <= limit ? bodies.take(declared) : undefined;
  let whole = pooled?.subarray(0, declared);
  const chunks: Uint8Array[] = [];
  let total = 0;
  return new Promise((resolve, reject) => {
    const done = (bytes: Uint8Array | undefined) => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
      // The pooled buffer goes back when the handler is done, if the body is in it (not joined chunks).
      const inPool = pooled !== undefined && bytes?.buffer === pooled.buffer;
      resolve(bytes && { bytes, release: inPool ? () => bodies.giveBack(pooled) : () => {} });
    };
    const onData = (chunk: Uint8Array) => {
      if (total + chunk.length > limit) {
        // No further: toNodeListener answers (413) and closes the connection instead of reading the rest.
        req.pause();
        done(undefined);
        return;
      }
      if (whole && total + chunk.length <= whole.length) whole.set(chunk, total);
      else {
        if (whole) chunks.push(whole.subarray(0, total)); // more than declared: keep what came so far
        whole = undefined;
        chunks.push(chunk);
      }
      total += chunk.length;
    };
    const onEnd = () => {
      if (whole) done(total === whole.length ? whole : whole.subarray(0, total));
      else done(concatBytes(chunks));
    };
    const onError = (err: Error) => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("close", onClose);
      reject(err);
    };
    // Closed before its end (the client went away): as the stream adapter would, an error.
    const onClose = () => {
      if (!req.complete) onError(new Error("the request was aborted before its body was complete"));
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}
