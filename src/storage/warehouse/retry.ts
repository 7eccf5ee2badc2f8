// Retries with jittered exponential backoff for the warehouse's network calls. Only failures that a later
// attempt can cure (a 5xx, a reset connection, a server that is restarting) are retried; a refusal (403,
// 404, a bad request) is final at once.

export interface RetryOptions {
  /** Attempts after the first one. Default 4 (with the default delay: about 1.5 s of waiting in all). */
  retries?: number;
  /** The first wait in ms; each next one doubles, with jitter. Default 100. */
  baseDelayMs?: number;
}

export async function withRetry<T>(
  attempt: () => Promise<T>,
  transient: (err: unknown) => boolean,
  { retries = 4, baseDelayMs = 100 }: RetryOptions = {},
): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await attempt();
    } catch (err) {
      if (i >= retries || !transient(err)) throw err;
      // Full jitter: writers that failed together do not all come back at the same instant.
      const ceiling = baseDelayMs * 2 ** i;
      await new Promise((r) => setTimeout(r, ceiling / 2 + Math.random() * (ceiling / 2)));
    }
  }
}

/** Node's network error codes for a peer that is gone or not (yet) there. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ECONNABORTED",
]);

/** True for a socket-level failure (the request may or may not have reached the server). */
export function isNetworkError(err: unknown): boolean {
  const e = err as { code?: unknown; cause?: unknown; name?: unknown; message?: unknown } | undefined;
  if (!e || typeof e !== "object") return false;
  if (typeof e.code === "string" && NETWORK_CODES.has(e.code)) return true;
  if (e.name === "TimeoutError") return true;
  // pg says this when the server closes the socket under a query.
  if (typeof e.message === "string" && /Connection terminated|connection.*closed/i.test(e.message))
    return true;
  return e.cause !== undefined && e.cause !== err && isNetworkError(e.cause);
}
