// `ns.maintain()`: whatever maintenance is due, in DuckLake's CHECKPOINT order — flush inlined appends →
// compact (tiered, so it is cheap to run often) → expire snapshots by retention → delete files whose grace
// period is over → clean up the catalog log → remove orphans. Each step is its own optimistic commit, so
// appends from any tab, Worker or process go on meanwhile; a step that loses a race retries or leaves its
// work for the next call.
import { AvaError, describeValue } from "../errors.js";
import type { Storage } from "../storage/types.js";
import { checkFlushOptions, DEFAULT_GRACE_MS, type FlushOptions, flushDue } from "./inline-flush.js";
import { type CompactOptions, compactTable } from "./compact.js";
import { checkRetention, expireTable, type RetentionOptions } from "./expire.js";
import { deleteScheduled, vacuum } from "./vacuum.js";

export type { FlushOptions };

export interface MaintenanceOptions {
  /** Flushing inlined small appends into data files; false: never. */
  flush?: FlushOptions | false;
  /** Compaction (tiered by default); false: none. */
  compact?: CompactOptions | false;
  /** Snapshot retention; false: snapshots never expire. Default `{ maxAgeMs: 5 days, minSnapshots: 1 }`. */
  retain?: RetentionOptions | false;
  /**
   * How long unreferenced data files, covered log entries and orphans are kept before deletion (readers of
   * an older state may still need them). Default one hour.
   */
  graceMs?: number;
  /**
   * Orphans (files no commit ever referenced) are removed once their modification time is this old on the
   * real clock: longer than any writer takes between writing a file and committing it (a workflow node
   * commits when it returns). Default one hour.
   */
  orphanAgeMs?: number;
}

export interface MaintenanceResult {
  /** Data files merged away by compaction, and files they became. */
  filesCompacted: number;
  filesWritten: number;
  /** Inlined appends flushed into data files. */
  inlinedFlushed: number;
  snapshotsExpired: number;
  /** Data files deleted after their grace period (scheduled ones and orphans). */
  filesDeleted: number;
  /** Catalog log entries and checkpoints removed. */
  catalogEntriesRemoved: number;
}

export function checkMaintenanceOptions(what: string, options: MaintenanceOptions): void {
  if (typeof options !== "object" || options === null)
    throw new AvaError(
      "INVALID_ARGUMENT",
      `${what}: options must be an object, got ${describeValue(options)}`,
    );
  const { graceMs, retain, compact, orphanAgeMs } = options;
  if (orphanAgeMs !== undefined && !(typeof orphanAgeMs === "number" && orphanAgeMs >= 0))
    throw new AvaError(
      "INVALID_ARGUMENT",
      `${what}: orphanAgeMs must be ≥ 0, got ${describeValue(orphanAgeMs)}`,
    );
  if (graceMs !== undefined && !(typeof graceMs === "number" && graceMs >= 0))
    throw new AvaError("INVALID_ARGUMENT", `${what}: graceMs must be ≥ 0, got ${describeValue(graceMs)}`);
  if (retain !== undefined && retain !== false) checkRetention(what, retain);
  if (compact !== undefined && compact !== false && (typeof compact !== "object" || compact === null))
    throw new AvaError("INVALID_ARGUMENT", `${what}: compact must be an object or false`);
  if (options.flush !== undefined) checkFlushOptions(what, options.flush);
}

/** Runs every due step for the tables of `namespace` (all tables when undefined). */
export async function maintain(
  storage: Storage,
  namespace: string | undefined,
  options: MaintenanceOptions = {},
): Promise<MaintenanceResult> {
  checkMaintenanceOptions("maintain()", options);
  const {
    flush = {},
    compact = {},
    retain = {},
    graceMs = DEFAULT_GRACE_MS,
    orphanAgeMs = 3_600_000,
  } = options;
  const result: MaintenanceResult = {
    filesCompacted: 0,
    filesWritten: 0,
    inlinedFlushed: 0,
    snapshotsExpired: 0,
    filesDeleted: 0,
    catalogEntriesRemoved: 0,
  };
  const state = await storage.catalog.current();
  const tables = Object.values(state.tables).filter(
    (t) => namespace === undefined || t.namespace === namespace,
  );
  if (flush)
    for (const t of tables) {
      if (!flushDue(storage, t.history, flush)) continue;
      const done = await compactTable(storage, t.namespace, t.name, { ...(compact || {}), flush: true });
      result.inlinedFlushed += done.filesRemoved;
      result.filesWritten += done.filesAdded;
    }
  if (compact)
    for (const t of tables) {
      const done = await compactTable(storage, t.namespace, t.name, { tiered: true, ...compact });
      result.filesCompacted += done.filesRemoved;
      result.filesWritten += done.filesAdded;
    }
  if (retain)
    for (const t of tables)
      result.snapshotsExpired += (await expireTable(storage, t.namespace, t.name, retain)).expired;
  const scope = namespace === undefined ? {} : { namespace };
  result.filesDeleted += (await deleteScheduled(storage, { olderThanMs: graceMs, ...scope })).length;
  if (storage.catalog.cleanup) result.catalogEntriesRemoved = (await storage.catalog.cleanup(graceMs)).length;
  const orphans = await vacuum(storage, { olderThanMs: orphanAgeMs, ...scope });
  result.filesDeleted += orphans.removed.filter((p) => p.startsWith("data/")).length;
  return result;
}
