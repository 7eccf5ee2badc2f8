// What a Postgres failure means to the library, by SQLSTATE (https://www.postgresql.org/docs/current/errcodes-appendix.html)
// or socket error: refused credentials, a server that is gone or restarting, or anything else.
import { AvaError, isAvaError } from "../../errors.js";
import { isNetworkError } from "./retry.js";

const sqlstate = (err: unknown) => {
  const code = (err as { code?: unknown })?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
};

/** The server is down, restarting, out of connection slots, or the socket broke. */
function isUnavailable(err: unknown): boolean {
  const state = sqlstate(err);
  if (state) return state.startsWith("08") || state.startsWith("57P") || state === "53300";
  return (
    isNetworkError(err) || /timeout exceeded when trying to connect/i.test(String((err as Error)?.message))
  );
}

/** A failure that a later attempt may not meet (reads retry these; a commit first asks what happened). */
export function isTransientPg(err: unknown): boolean {
  if (isAvaError(err)) return false;
  const state = sqlstate(err);
  return isUnavailable(err) || state === "40001" || state === "40P01";
}

/** `postgresql://user:secret@host/db` with the password hidden, for messages. */
export function redact(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    if (url.password) url.password = "***";
    return url.toString();
  } catch {
    return "(unparsable connection string)";
  }
}

export function pgError(err: unknown, what: string, server: string): AvaError {
  if (isAvaError(err)) return err;
  const state = sqlstate(err);
  const detail = `${state ? `${state} ` : ""}${(err as Error)?.message ?? String(err)}`;
  if (state === "28P01" || state === "28000" || state === "42501")
    return new AvaError(
      "UNAUTHORIZED",
      `${what}: Postgres at ${server} refused the credentials (${detail})`,
      {
        cause: err,
      },
    );
  if (state === "3D000")
    return new AvaError("NOT_FOUND", `${what}: the database of ${server} does not exist (${detail})`, {
      cause: err,
    });
  if (isUnavailable(err))
    return new AvaError("UNAVAILABLE", `${what}: Postgres at ${server} cannot be reached (${detail})`, {
      cause: err,
    });
  return new AvaError("IO_ERROR", `${what}: ${detail}`, { cause: err });
}
