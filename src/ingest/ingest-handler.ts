// `ingestHandler(table)`: the receiving end of a live stream. A fetch-style handler — `(Request) =>
// Promise<Response>` — so it runs unchanged in a service worker, Deno, Bun, or node:http through
// `toNodeListener`. Each POST carries one Avro stream file; it is validated whole, appended as one snapshot,
// and its `Idempotency-Key` is committed in that same catalog commit. A re-sent batch (its acknowledgement
// was lost, the sender restarted) finds its key and is acknowledged without a second append: together with a
// sender that keeps each batch until acknowledged, every point lands exactly once.
import type { ToArrowOptions } from "../avro/to-arrow.js";
import { AvaError, isAvaError } from "../errors.js";
import { checkParquetCompression, type ParquetCompression } from "../parquet/parquet.js";
import type { Table } from "../table/table.js";
import { errorResponse, jsonResponse } from "./http-errors.js";
import { readBody } from "./read-body.js";

export interface IngestOptions extends Pick<ToArrowOptions, "tags" | "timestampType"> {
  /** Largest request body accepted, in bytes (larger: 413). Default 64 MiB. */
  maxBytes?: number;
  /**
   * Who may post: a bearer token (`Authorization: Bearer <token>`), or a function judging each request.
   * Without it, anyone who reaches the endpoint may append: bind it to loopback or put auth in front.
   */
  auth?: string | ((request: Request) => boolean | Promise<boolean>);
  /**
   * Parquet compression of each batch's file. Default "uncompressed": the append is on the sender's path to
   * its acknowledgement, and an uncompressed file of flat columns is written in JS (parquet/flat-writer.ts)
   * at several times the rate of zstd through wasm; telemetry doubles hardly compress, and timestamps are
   * written as differences (a 250,000-point batch: 1.95 MiB, against 1.83 MiB with zstd). Compaction (table
   * maintenance) merges these small files and rewrites them with zstd.
   */
  compression?: ParquetCompression;
}

/** What a successful ingest answers (JSON, status 200). */
export interface IngestReceipt {
  snapshotId: string;
  rows: number;
  /** True when this batch's key had been committed before: nothing was appended this time. */
  duplicate: boolean;
}

const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

/** What the handler needs of a table: any `Table` declared with `avro.avroStreamArrowSchema`. */
export type IngestTarget = Pick<Table<unknown, unknown>, "appendAvroStream">;

export function ingestHandler(
  table: IngestTarget,
  options: IngestOptions = {},
): (request: Request) => Promise<Response> {
  const { maxBytes = DEFAULT_MAX_BYTES, auth, tags, timestampType, compression = "uncompressed" } = options;
  if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0)
    throw new AvaError(
      "INVALID_ARGUMENT",
      `ingestHandler: maxBytes must be a positive integer, got ${maxBytes}`,
    );
  if (auth !== undefined && typeof auth !== "function" && (typeof auth !== "string" || auth.length === 0))
    throw new AvaError("INVALID_ARGUMENT", "ingestHandler: auth must be a non-empty token or a function");
  checkParquetCompression(compression, "ingestHandler");
  const isAllowed = typeof auth === "string" ? bearer(auth) : auth;
  const read = { ...(tags && { tags }), ...(timestampType && { timestampType }), compression };

  return async (request) => {
    try {
      if (request.method !== "POST")
        return jsonResponse(
          { error: { code: "INVALID_ARGUMENT", message: `${request.method}: this endpoint takes POST` } },
          405,
          { allow: "POST" },
        );
      if (isAllowed && !(await isAllowed(request)))
        throw new AvaError("UNAUTHORIZED", "a valid Authorization: Bearer token is required");
      const key = request.headers.get("idempotency-key") ?? undefined;
      const body = await readBody(request, maxBytes);
      let result: Awaited<ReturnType<IngestTarget["appendAvroStream"]>>;
      try {
        if (body.bytes.byteLength === 0)
          throw new AvaError("INVALID_ARGUMENT", "the request has no body: POST one Avro stream file");
        // The append copies what it keeps (records into Arrow columns): the body is done with once it settles.
        // Only the receipt is answered: the columns' memory is reused by the next batch (keepRows: false).
        result = await table.appendAvroStream(body.bytes, {
          ...read,
          keepRows: false,
          ...(key !== undefined && { idempotencyKey: key }),
        });
      } finally {
        body.release();
      }
      const receipt: IngestReceipt = {
        snapshotId: result.snapshotId,
        rows: result.rowCount,
        duplicate: result.duplicate,
      };
      return jsonResponse(receipt);
    } catch (err) {
      // A commit conflict that is not a duplicate (nothing else conflicts with a plain append) may pass.
      if (isAvaError(err, "COMMIT_CONFLICT")) return errorResponse(err, { "retry-after": "1" }, 503);
      return errorResponse(err);
    }
  };
}

/** Compares the whole token whatever the first difference, so timing does not reveal a prefix. */
function bearer(token: string): (request: Request) => boolean {
  const expected = new TextEncoder().encode(`Bearer ${token}`);
  return (request) => {
    const given = new TextEncoder().encode(request.headers.get("authorization") ?? "");
    let diff = given.length ^ expected.length;
    for (let i = 0; i < expected.length; i++) diff |= expected[i]! ^ (given[i] ?? 0);
    return diff === 0;
  };
}
