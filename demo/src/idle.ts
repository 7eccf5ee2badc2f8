// UI that is not the charts (counters, status lines, the snapshot list) waits for the browser's idle time
// after a frame, so it never lands inside a frame of the live tail's scroll.

/** Runs `work` when the main thread is idle, or after `timeoutMs` at the latest. */
export function whenIdle(work: () => void, timeoutMs = 500): void {
  if (typeof requestIdleCallback === "function") requestIdleCallback(() => work(), { timeout: timeoutMs });
  else setTimeout(work, 0);
}

/** `setInterval`, each run waiting for idle time. */
export function everyIdle(ms: number, work: () => void): void {
  let due = false;
  setInterval(() => {
    if (due) return; // the previous run has not found idle time yet: no pile-up
    due = true;
    whenIdle(() => {
      due = false;
      work();
    });
  }, ms);
}
