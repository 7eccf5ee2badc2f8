// `signal`, bounded by a deadline: what `AbortSignal.any([signal, AbortSignal.timeout(ms)])` means, without
// relying on it. In Node (20, 22) the timeout signal inside a composite holds no strong reference: a garbage
// collection before its timer fires can drop it, and the deadline silently never comes
// (nodejs/node#57736). Here the timer's own closure holds the controller it aborts, until it fires or the
// work settles and it is cleared.

/** Runs `work` with a signal that aborts when `signal` does or `ms` have passed, whichever is first. */
export async function withDeadline<T>(
  signal: AbortSignal,
  ms: number,
  work: (bounded: AbortSignal) => Promise<T>,
): Promise<T> {
  const bounded = new AbortController();
  const follow = () => bounded.abort(signal.reason);
  if (signal.aborted) follow();
  else signal.addEventListener("abort", follow, { once: true });
  const timer = setTimeout(
    () => bounded.abort(new DOMException(`the operation timed out after ${ms} ms`, "TimeoutError")),
    ms,
  );
  try {
    return await work(bounded.signal);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", follow);
  }
}
