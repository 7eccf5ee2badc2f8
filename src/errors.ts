// The one error type the library throws. Callers test `err.code` (never `instanceof` across bundles);
// the message names the thing that is wrong: table, column, row, file, offset.

export type AvaErrorCode =
  | "SCHEMA_MISMATCH" // data or a stored schema does not fit the declared one
  | "UNSUPPORTED_TYPE" // a schema field has no Arrow representation
  | "INVALID_NAME" // a namespace, table or key name that could escape a folder or is malformed
  | "INVALID_ARGUMENT" // an option or argument of the wrong shape
  | "NOT_FOUND" // a table, snapshot, file or column that does not exist
  | "COMMIT_CONFLICT" // another writer changed what this commit depended on
  | "CARDINALITY" // one()/oneOrNone() saw the wrong number of rows
  | "DATA_CORRUPT" // a data file that cannot be decoded
  | "CATALOG_CORRUPT" // a catalog entry that cannot be decoded
  | "QUOTA_EXCEEDED" // the platform refused to store more bytes
  | "AVRO_CORRUPT" // an Avro stream file that cannot be decoded
  | "AVRO_SCHEMA" // an Avro file whose schema is not an Avro stream
  | "SQL_ERROR" // DuckDB refused a query (its message is kept)
  | "CANCELLED" // a query was stopped through its AbortSignal
  | "TIMEOUT" // a query or a wait ran past the time it was given (the query is stopped, a run goes on)
  | "WORKFLOW_INVALID" // a workflow that cannot be built: a cycle, a duplicate slug, a step called outside one
  | "RUN_FAILED" // a node of a run failed (the error carries the RunResult)
  | "RUN_CANCELLED" // a run was cancelled before it finished (the error carries the RunResult)
  | "WORKER_CRASHED" // the Worker or worker thread running a node died
  | "UNAVAILABLE" // the platform lacks what was asked for (OPFS outside a browser, say)
  | "UNAUTHORIZED" // a request without the credentials the server requires
  | "TOO_LARGE" // a request or input over a declared size limit
  | "IO_ERROR"; // any other storage failure

export class AvaError extends Error {
  override readonly name = "AvaError";
  readonly code: AvaErrorCode;

  constructor(code: AvaErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }
}

/** True for an AvaError from any copy of the library (checked by shape, not by class). */
export function isAvaError(err: unknown, code?: AvaErrorCode): err is AvaError {
  if (typeof err !== "object" || err === null) return false;
  const e = err as { name?: unknown; code?: unknown };
  return e.name === "AvaError" && typeof e.code === "string" && (code === undefined || e.code === code);
}

/** Formats a value for an error message: short, and never a 10 MB dump. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value instanceof Date)
    return `Date(${Number.isNaN(value.getTime()) ? "invalid" : value.toISOString()})`;
  if (Array.isArray(value)) return `array(${value.length})`;
  if (typeof value === "object") return value.constructor?.name ?? "object";
  return String(value);
}

/**
 * Any error as an AvaError: AvaErrors pass through; the platform's DOMExceptions keep their meaning
 * (a refused write is QUOTA_EXCEEDED wherever it surfaces).
 */
export function toAvaError(err: unknown, what: string): AvaError {
  if (isAvaError(err)) return err;
  const name = (err as { name?: unknown })?.name;
  const detail = (err as { message?: unknown })?.message ?? String(err);
  if (name === "QuotaExceededError")
    return new AvaError("QUOTA_EXCEEDED", `${what}: the browser refused to store more (${detail})`, {
      cause: err,
    });
  if (name === "NotFoundError") return new AvaError("NOT_FOUND", `${what}: not found`, { cause: err });
  return new AvaError("IO_ERROR", `${what}: ${detail}`, { cause: err });
}
