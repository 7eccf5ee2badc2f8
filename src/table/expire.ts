// Snapshot expiry by retention: the oldest snapshots leave a table's history once they are older than
// `maxAgeMs` and more than `minSnapshots` are kept — but never one an append_scan consumer has not passed,
// one a cursor names, or one a pinned SQL handle of this context holds (nor any after those). Reading an
// expired snapshot is NOT_FOUND saying so; the files only it read are scheduled for deletion (vacuum.ts).
import { AvaError, isAvaError } from "../errors.js";
import { tableKey } from "../storage/catalog/model.js";
import { neededFrom } from "../storage/catalog/retention.js";
import type { CatalogState } from "../storage/catalog/state.js";
import { clockOf, type Storage } from "../storage/types.js";
import { pinnedSnapshots } from "./pins.js";

export interface RetentionOptions {
  /** Snapshots older than this may expire. Default 5 days (Iceberg's). */
  maxAgeMs?: number;
  /** At least this many of the newest snapshots are kept, whatever their age (≥ 1). Default 1. */
  minSnapshots?: number;
}

export interface ExpireResult {
  /** Snapshots that left the history. */
  expired: number;
  /** Sequence number of the newest expired snapshot (0: none ever). */
  throughSequence: number;
}

export function checkRetention(what: string, retain: RetentionOptions): void {
  if (typeof retain !== "object" || retain === null)
    throw new AvaError("INVALID_ARGUMENT", `${what}: retain must be an object { maxAgeMs, minSnapshots }`);
  const { maxAgeMs, minSnapshots } = retain;
  if (maxAgeMs !== undefined && !(typeof maxAgeMs === "number" && maxAgeMs >= 0))
    throw new AvaError("INVALID_ARGUMENT", `${what}: retain.maxAgeMs must be ≥ 0, got ${String(maxAgeMs)}`);
  if (minSnapshots !== undefined && !(Number.isSafeInteger(minSnapshots) && minSnapshots >= 1))
    throw new AvaError(
      "INVALID_ARGUMENT",
      `${what}: retain.minSnapshots must be a whole number ≥ 1, got ${String(minSnapshots)}`,
    );
}

/** The newest sequence number retention lets expire now (0 or the current base: nothing to do). */
export function expiryPoint(
  storage: Storage,
  state: CatalogState,
  key: string,
  { maxAgeMs = 5 * 86_400_000, minSnapshots = 1 }: RetentionOptions,
): number {
  const table = state.tables[key]!;
  const snapshots = table.history.snapshots;
  const cutoff = clockOf(storage) - maxAgeMs;
  let through = table.history.base?.throughSequence ?? 0;
  for (let i = 0; i < snapshots.length - minSnapshots; i++) {
    if (snapshots[i]!.timestampMs >= cutoff) break; // only those older than maxAgeMs
    through = snapshots[i]!.sequenceNumber;
  }
  let limit = neededFrom(table, state.streams, state.cursors) - 1;
  const pinned = pinnedSnapshots(storage, key);
  for (const s of snapshots) if (pinned.has(s.id)) limit = Math.min(limit, s.sequenceNumber - 1);
  return Math.min(through, limit);
}

/** Expires what retention allows in one table (one commit), re-planning if a consumer moved meanwhile. */
export async function expireTable(
  storage: Storage,
  namespace: string,
  name: string,
  retain: RetentionOptions = {},
): Promise<ExpireResult> {
  const key = tableKey(namespace, name);
  checkRetention(`expire(${key})`, retain);
  for (let attempt = 1; ; attempt++) {
    const state = await storage.catalog.current();
    const table = state.tables[key];
    if (!table) throw new AvaError("NOT_FOUND", `table ${key} does not exist`);
    const done = table.history.base?.throughSequence ?? 0;
    const through = expiryPoint(storage, state, key, retain);
    if (through <= done) return { expired: 0, throughSequence: done };
    try {
      await storage.catalog.commit([
        {
          op: "expireSnapshots",
          namespace,
          table: name,
          throughSequence: through,
          timestampMs: clockOf(storage),
        },
      ]);
      const expired = table.history.snapshots.filter(
        (s) => s.sequenceNumber > done && s.sequenceNumber <= through,
      ).length;
      return { expired, throughSequence: through };
    } catch (err) {
      if (!isAvaError(err, "COMMIT_CONFLICT") || attempt >= 3) throw err;
    }
  }
}
