// How an AvaError reads over HTTP: one status per code, and a JSON body `{ error: { code, message } }` that a
// client turns back into the same AvaError. Statuses a sender should retry (5xx, 408, 429) are kept for
// failures that may pass; a refusal of the request itself is 4xx, so a client never re-sends a bad batch.
import { type AvaErrorCode, isAvaError } from "../errors.js";

const STATUS: Partial<Record<AvaErrorCode, number>> = {
  INVALID_ARGUMENT: 400,
  INVALID_NAME: 400,
  SCHEMA_MISMATCH: 400,
  UNSUPPORTED_TYPE: 400,
  AVRO_CORRUPT: 400,
  AVRO_SCHEMA: 400,
  SQL_ERROR: 400,
  CARDINALITY: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  COMMIT_CONFLICT: 409,
  TOO_LARGE: 413,
  TIMEOUT: 504,
  CANCELLED: 499,
  QUOTA_EXCEEDED: 507,
  UNAVAILABLE: 503,
  IO_ERROR: 503,
};

/** The HTTP status that answers a request failed by `err` (500 for anything that is not an AvaError). */
export function httpStatusOf(err: unknown): number {
  return (isAvaError(err) && STATUS[err.code]) || 500;
}

/** A JSON response; `init.headers` are added to its content type. */
export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...headers, "content-type": "application/json; charset=utf-8" },
  });
}

/** The response for a failed request: the AvaError's code and message, or a generic 500 for a bug. */
export function errorResponse(
  err: unknown,
  headers: Record<string, string> = {},
  status = httpStatusOf(err),
): Response {
  const error = isAvaError(err)
    ? { code: err.code, message: err.message }
    : { code: "INTERNAL", message: "internal error" };
  return jsonResponse({ error }, status, headers);
}
