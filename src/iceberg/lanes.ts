// One export per table at a time in this process: concurrent commits would otherwise race for the same
// metadata version only to re-read and redo the loser's work. A per-commit export that has not started yet
// covers every commit made before it starts, so commits in quick succession share it (one metadata version).
import type { Storage } from "../storage/types.js";

/** A table's exports: the last one queued, and the per-commit one waiting for its turn. */
interface Lane {
  last: Promise<unknown>;
  waiting?: Promise<unknown>;
}

const lanes = new WeakMap<Storage, Map<string, Lane>>();

/** Runs `work` after the table's earlier exports; `shared` work joins one still waiting instead. */
export function inLane<T>(
  storage: Storage,
  key: string,
  shared: boolean,
  work: () => Promise<T>,
): Promise<T> {
  let byTable = lanes.get(storage);
  if (!byTable) {
    byTable = new Map();
    lanes.set(storage, byTable);
  }
  const tables = byTable;
  const lane: Lane = tables.get(key) ?? { last: Promise.resolve() };
  tables.set(key, lane);
  if (shared && lane.waiting) return lane.waiting as Promise<T>;
  const go = () => {
    if (lane.waiting === run) delete lane.waiting;
    return work();
  };
  const run = lane.last.then(go, go);
  if (shared) lane.waiting = run;
  lane.last = run;
  void run
    .finally(() => {
      if (lane.last === run) tables.delete(key);
    })
    .catch(() => {});
  return run;
}
