// The "nominal" transport: each batch as Nominal's live write request — protobuf `WriteRequestNominal`,
// snappy-framed — POSTed to `{url}/storage/writer/v1/nominal/{datasetRid}` with a bearer token, as the
// shipping Rust client sends it. Nominal's endpoint takes no idempotency key, so a batch whose
// acknowledgement was lost may be written twice there; we still send the batch id as `Idempotency-Key`
// (ignored by servers that do not know it) so an endpoint that dedupes can. The batch stays an Avro stream
// file until it is sent: what the outbox keeps is readable by any Avro tool.
import { AvaError } from "../../errors.js";
import { readAvroStream } from "../read.js";
import { encodeWriteRequest } from "./nominal-request.js";
import { snappyFrame } from "./snappy-framed.js";
import { checkTls, type NodeTls } from "./node-http-post.js";
import { httpUrl, postBatch, type Transport } from "./transport.js";

export interface NominalTransportOptions {
  /** The Nominal API's base URL, e.g. https://api.gov.nominal.io/api. */
  url: string | URL;
  /** The dataset the points go to (`ri.catalog.….dataset.…`). */
  datasetRid: string;
  /** A Nominal API token, sent as `Authorization: Bearer <token>`. */
  token?: string;
  headers?: Record<string, string>;
  /** Snappy-framed bodies (`Content-Encoding: x-snappy-framed`), as the Rust client sends. Default true. */
  compress?: boolean;
  timeoutMs?: number;
  /** https in Node: certificates to trust besides Node's own (see AvroTransportOptions.tls). */
  tls?: NodeTls;
}

export function nominalTransport(options: NominalTransportOptions): Transport {
  const { datasetRid, token, headers = {}, compress = true, timeoutMs = 30_000 } = options;
  const tls = checkTls(options.tls, "the nominal transport");
  if (typeof datasetRid !== "string" || !/^[\w.:-]+$/.test(datasetRid))
    throw new AvaError(
      "INVALID_ARGUMENT",
      `the nominal transport needs a datasetRid (letters, digits, ".", ":", "-", "_"), got ${JSON.stringify(datasetRid)}`,
    );
  const base = httpUrl(options.url, "nominal url");
  const target = new URL(
    `${base.pathname.replace(/\/$/, "")}/storage/writer/v1/nominal/${encodeURIComponent(datasetRid)}`,
    base,
  );
  const sent: Record<string, string> = {
    ...headers,
    "Content-Type": "application/x-protobuf",
    ...(token !== undefined && { Authorization: `Bearer ${token}` }),
    ...(compress && { "Content-Encoding": "x-snappy-framed" }),
  };
  return async (batch, signal) => {
    const request = encodeWriteRequest(await readAvroStream(batch.bytes));
    const body = compress ? snappyFrame(request) : request;
    await postBatch(target, batch, body, { ...sent, "Idempotency-Key": batch.id }, signal, timeoutMs, tls);
  };
}
