// Which checkpoints to keep. Only the newest is needed to open a catalog, but cleanup (LogCatalog.cleanup)
// removes the log entries before the newest checkpoint that is a grace period old — a period the writer
// of checkpoints does not know. So the newest few are kept, and older ones thinned to a doubling spacing
// in age: for any grace period G a kept checkpoint between G and about 2G old remains, and cleanup still
// progresses (bounding the log to about twice the grace period), while a catalog without maintenance keeps
// O(log age) checkpoints instead of every one it ever wrote.

/** Checkpoints kept whatever their age: opening reads the newest, a reader may be reading the next. */
export const KEEP_NEWEST_CHECKPOINTS = 3;

export interface CheckpointAge {
  version: number;
  /** When it was written; undefined for a checkpoint from before this was recorded (taken as oldest). */
  writtenMs: number | undefined;
}

/** The versions of the checkpoints to remove, given all of them and the time now. */
export function checkpointsToPrune(checkpoints: readonly CheckpointAge[], nowMs: number): number[] {
  const newestFirst = [...checkpoints].sort((a, b) => b.version - a.version);
  const prune: number[] = [];
  let keptAge = 0;
  newestFirst.forEach((c, i) => {
    const age = c.writtenMs === undefined ? Number.POSITIVE_INFINITY : Math.max(0, nowMs - c.writtenMs);
    if (i < KEEP_NEWEST_CHECKPOINTS || age > 2 * keptAge) keptAge = Math.max(keptAge, age);
    else prune.push(c.version);
  });
  return prune;
}
