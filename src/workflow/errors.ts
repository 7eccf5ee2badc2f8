// Errors as plain data, so that they cross Workers and go into the catalog with name, message, code and
// stack, and come back as errors that still answer `isAvaError(err, code)`; and the refusal of a node that
// needs storage in a run that has none.
import { AvaError, type AvaErrorCode } from "../errors.js";
import type { ErrorInfo } from "../storage/catalog/model.js";
import type { Storage } from "../storage/types.js";

/** The run's storage, or INVALID_ARGUMENT naming `what` needed it (a run started without `{ storage }`). */
export function requireStorage(storage: Storage | undefined, what: string): Storage {
  if (!storage)
    throw new AvaError(
      "INVALID_ARGUMENT",
      `${what} needs the run's storage; pass { storage } to flow.run(...)`,
    );
  return storage;
}

export function toErrorInfo(err: unknown): ErrorInfo {
  if (err instanceof Error) {
    const info: ErrorInfo = { name: err.name, message: err.message };
    const code = (err as { code?: unknown }).code;
    if (typeof code === "string") info.code = code;
    if (err.stack) info.stack = err.stack;
    return info;
  }
  return { name: "Error", message: String(err) };
}

export function fromErrorInfo(info: ErrorInfo): Error {
  const err =
    info.name === "AvaError" && info.code
      ? new AvaError(info.code as AvaErrorCode, info.message)
      : Object.assign(new Error(info.message), { name: info.name }, info.code ? { code: info.code } : {});
  if (info.stack) err.stack = info.stack;
  return err;
}
