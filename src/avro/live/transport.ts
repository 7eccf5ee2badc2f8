// How a live stream's batches leave: a transport is a function from one batch (an Avro stream file with its
// id) to a promise that settles when the server has acknowledged it. A rejection with an IO_ERROR or
// UNAVAILABLE AvaError, or any error that is not an AvaError (a network failure), is worth retrying; any
// other AvaError means the server refused the batch itself and retrying cannot help.
import { AvaError, isAvaError } from "../../errors.js";
import { withDeadline } from "../../util/deadline.js";
import {
  checkTls,
  describeFailure,
  hasNodeHttp,
  type NodeTls,
  nodeHttpPost,
  type PostAnswer,
} from "./node-http-post.js";

export interface LiveBatch {
  /** Unique and stable across retries: the idempotency key a server dedupes by. */
  readonly id: string;
  /** One whole Avro stream file. */
  readonly bytes: Uint8Array;
  readonly points: number;
}

export type Transport = (batch: LiveBatch, signal: AbortSignal) => Promise<void>;

/** Should a batch whose send failed with `err` be sent again? */
export function isRetryable(err: unknown): boolean {
  return !isAvaError(err) || err.code === "IO_ERROR" || err.code === "UNAVAILABLE";
}

export interface AvroTransportOptions {
  /** Where each batch is POSTed. */
  url: string | URL;
  /** Extra request headers (an Authorization bearer token, say). */
  headers?: Record<string, string>;
  /** A request that takes longer is abandoned and retried. Default 30 s. */
  timeoutMs?: number;
  /** https in Node: certificates to trust besides Node's own (a private CA, a self-signed server). */
  tls?: NodeTls;
}

/** Statuses that say "later", not "never". */
const RETRY_STATUSES = new Set([408, 425, 429]);

/** An absolute http(s) URL, or INVALID_ARGUMENT. */
export function httpUrl(url: string | URL, what = "live stream url"): URL {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new AvaError("INVALID_ARGUMENT", `${what} ${JSON.stringify(String(url))} is not an absolute URL`);
  }
  if (target.protocol !== "http:" && target.protocol !== "https:")
    throw new AvaError("INVALID_ARGUMENT", `${what} ${target.href}: only http and https are supported`);
  return target;
}

/**
 * A request body for `bytes`. In a browser, a Blob: an ArrayBuffer body is copied into the request and,
 * while DevTools watches the network (Playwright drives Chromium through DevTools), also into the inspector —
 * measured 1.2–2 s per 3.3 MB POST against 0.1 s for the same bytes as a Blob (and 0.17 s either way with
 * no DevTools attached). Elsewhere the bytes themselves: Node's fetch would copy and stream a Blob.
 */
export function fetchBody(bytes: Uint8Array): BodyInit {
  const g = globalThis as { document?: unknown; WorkerGlobalScope?: unknown };
  const browser = g.document !== undefined || g.WorkerGlobalScope !== undefined;
  return browser ? new Blob([bytes as Uint8Array<ArrayBuffer>]) : (bytes as Uint8Array<ArrayBuffer>);
}

/**
 * POSTs `body` for `batch` and settles as a transport must: resolves on 2xx, rejects with IO_ERROR (retry)
 * on a network failure, a timeout, 5xx, 408, 425 or 429, and with INVALID_ARGUMENT (refused) otherwise.
 * Through node:http where there is one (node-http-post.ts: Node's fetch costs the sender more CPU than
 * encoding the batch), through fetch in a browser.
 */
export async function postBatch(
  target: URL,
  batch: LiveBatch,
  body: Uint8Array,
  headers: Record<string, string>,
  signal: AbortSignal,
  timeoutMs: number,
  tls?: NodeTls,
): Promise<void> {
  let answer: PostAnswer;
  try {
    answer = await withDeadline(signal, timeoutMs, (bounded) =>
      hasNodeHttp()
        ? nodeHttpPost(target, body, headers, bounded, tls)
        : fetchPost(target, body, headers, bounded),
    );
  } catch (cause) {
    // Retried as any failure to connect (the batch stays in the outbox: a certificate put right resumes it).
    throw new AvaError("IO_ERROR", `sending batch ${batch.id} to ${target.href}: ${describeFailure(cause)}`, {
      cause,
    });
  }
  const { status, text } = answer;
  if (status >= 200 && status < 300) return;
  const detail = `${target.href} answered ${status} for batch ${batch.id}${text ? `: ${text.slice(0, 200)}` : ""}`;
  if (status >= 500 || RETRY_STATUSES.has(status)) throw new AvaError("IO_ERROR", detail);
  throw new AvaError("INVALID_ARGUMENT", `the batch was refused: ${detail}`);
}

async function fetchPost(
  target: URL,
  body: Uint8Array,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<PostAnswer> {
  const response = await fetch(target, { method: "POST", headers, body: fetchBody(body), signal });
  return { status: response.status, text: await response.text().catch(() => "") };
}

/**
 * The "avro" transport: each batch is POSTed as one Avro stream file (`Content-Type: application/avro`)
 * with an `Idempotency-Key` header carrying the batch id, so a server that committed a batch whose
 * acknowledgement was lost answers the re-sent copy without appending it twice.
 */
export function avroTransport({
  url,
  headers = {},
  timeoutMs = 30_000,
  tls,
}: AvroTransportOptions): Transport {
  const target = httpUrl(url);
  const trusted = checkTls(tls, "the avro transport");
  return (batch, signal) =>
    postBatch(
      target,
      batch,
      batch.bytes,
      { ...headers, "Content-Type": "application/avro", "Idempotency-Key": batch.id },
      signal,
      timeoutMs,
      trusted,
    );
}
