// One export per table at a time in this process: concurrent commits would otherwise race for the same
// metadata version only to re-read and redo the loser's work. A per-commit export that has not started yet
// covers every commit made before it starts, so commits in quick succession share it (one metadata version).
// A background export also waits a moment before it starts, so that a burst of commits — which no longer
// find an export in flight now that one takes less than a commit — still shares one version: each commit
// then costs its manifest and manifest list, and the metadata file and hint are paid once per burst.
import type { Storage } from "../storage/types.js";
import { getOrCreate } from "../util/get-or-create.js";

/**
 * How long a background export waits for more commits to describe (the staleness background mode accepts):
 * 25 times what the table's last version cost to write (its JSON, which lists every kept snapshot, and the
 * hint), within [50 ms, 1 s]. Commits arriving back to back then pay about 4% of their own time for the
 * per-version part however long the history grows; each still pays its manifest and manifest list. (Ten
 * times and 20 ms at least made the per-version part about half of the 20% the issue allows the metadata.)
 */
export function backgroundDelayMs(lastVersionMs: number | undefined): number {
  const { minMs, maxMs, shareInverse } = backgroundDelay;
  return Math.min(maxMs, Math.max(minMs, shareInverse * (lastVersionMs ?? 0)));
}

/**
 * backgroundDelayMs()'s bounds and factor. The bench (AVA_BENCH_ICEBERG_MIN_DELAY_MS) sets the lower bound
 * to weigh the per-version part against staleness: with fast commits the lower bound is what decides how
 * many commits a version covers.
 */
export const backgroundDelay = { minMs: 50, maxMs: 1000, shareInverse: 25 };

/** A table's exports: the last one queued, and the per-commit one waiting for its turn. */
interface Lane {
  last: Promise<unknown>;
  waiting?: Promise<unknown>;
  /** Ends a background export's wait early (exportIceberg() asks for the metadata now). */
  hurry?: () => void;
  /** Set by such a request before the waiting export began its wait: it then does not wait at all. */
  urgent?: boolean;
}

const lanes = new WeakMap<Storage, Map<string, Lane>>();

/**
 * Runs `work` after the table's earlier exports; `shared` work joins one still waiting instead, and with
 * `delayMs` waits that long for more to join first. Work that is not shared ends any such wait.
 */
export function inLane<T>(
  storage: Storage,
  key: string,
  shared: boolean,
  work: () => Promise<T>,
  delayMs = 0,
): Promise<T> {
  const tables = getOrCreate(lanes, storage, () => new Map<string, Lane>());
  const lane: Lane = tables.get(key) ?? { last: Promise.resolve() };
  tables.set(key, lane);
  if (shared && lane.waiting) return lane.waiting as Promise<T>;
  if (!shared && lane.waiting) {
    lane.urgent = true;
    lane.hurry?.();
  }
  const go = () => {
    if (lane.waiting === run) {
      delete lane.waiting;
      lane.urgent = false;
    }
    return work();
  };
  const pause = () => (shared && delayMs > 0 ? wait(lane, delayMs) : undefined);
  const run = lane.last.then(pause, pause).then(go);
  if (shared) lane.waiting = run;
  lane.last = run;
  void run
    .finally(() => {
      if (lane.last === run) tables.delete(key);
    })
    .catch(() => {});
  return run;
}

function wait(lane: Lane, ms: number): Promise<void> {
  if (lane.urgent) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      if (lane.hurry === done) delete lane.hurry;
      resolve();
    };
    const timer = setTimeout(done, ms);
    lane.hurry = done;
  });
}
