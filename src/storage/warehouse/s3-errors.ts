// What an S3 failure means to the library: the SDK's service exceptions (by name and HTTP status) and
// socket errors, mapped onto AvaError codes, plus which of them a retry can cure.
import { AvaError, isAvaError } from "../../errors.js";
import { isNetworkError } from "./retry.js";

interface S3Failure {
  name?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

const status = (err: unknown) => (err as S3Failure)?.$metadata?.httpStatusCode;
const nameOf = (err: unknown) => (err as S3Failure)?.name;

const UNAUTHORIZED = new Set([
  "AccessDenied",
  "InvalidAccessKeyId",
  "SignatureDoesNotMatch",
  "ExpiredToken",
  "InvalidToken",
]);

export function isNotFound(err: unknown): boolean {
  const name = nameOf(err);
  return name === "NoSuchKey" || name === "NotFound" || (status(err) === 404 && name !== "NoSuchBucket");
}

/** A failure a later attempt may not meet: the server's 5xx, throttling, or a broken connection. */
export function isTransientS3(err: unknown): boolean {
  if (isAvaError(err)) return false;
  const code = status(err);
  if (code !== undefined) return code >= 500 || code === 429 || code === 408;
  const name = nameOf(err);
  return name === "SlowDown" || name === "RequestTimeout" || isNetworkError(err);
}

/** An S3 failure as an AvaError whose message names the bucket and key. */
export function s3Error(err: unknown, what: string, bucket: string): AvaError {
  if (isAvaError(err)) return err;
  const name = nameOf(err) ?? "Error";
  const detail = `${name}${status(err) ? ` ${status(err)}` : ""}: ${(err as S3Failure)?.message ?? String(err)}`;
  if (name === "NoSuchBucket")
    return new AvaError("NOT_FOUND", `${what}: bucket "${bucket}" does not exist (${detail})`, {
      cause: err,
    });
  if (isNotFound(err)) return new AvaError("NOT_FOUND", `${what}: no such file`, { cause: err });
  if (UNAUTHORIZED.has(name) || status(err) === 403 || status(err) === 401)
    return new AvaError(
      "UNAUTHORIZED",
      `${what}: S3 refused the credentials for bucket "${bucket}" (${detail})`,
      { cause: err },
    );
  if (isNetworkError(err) && status(err) === undefined)
    return new AvaError("UNAVAILABLE", `${what}: the S3 endpoint cannot be reached (${detail})`, {
      cause: err,
    });
  return new AvaError("IO_ERROR", `${what}: ${detail}`, { cause: err });
}
