// Deleting what nothing references any more. Two kinds of files qualify:
// - scheduled files: data files that expired snapshots or a compaction left unreferenced, recorded in the
//   catalog with the time they became so (TableState.doomed) and deleted once `olderThanMs` has passed on
//   the storage's clock — other tabs, Workers and processes may still be reading an older state;
// - orphans: data files no commit ever referenced (a writer failed or was killed before its commit), and
//   the catalog's own leftovers, removed once their modification time is `olderThanMs` old on the real
//   clock, because a writer may be between writing its file and committing it.
// A file a kept snapshot references is never deleted, whatever writers do meanwhile: scheduled files are
// unreferenced for good (paths are never reused), and an orphan's youth protects a commit in flight.
import { AvaError } from "../errors.js";
import type { CatalogState } from "../storage/catalog/state.js";
import { clockOf, type Storage } from "../storage/types.js";
import { isInlinePath } from "./inline-data.js";

export interface VacuumOptions {
  /** Only remove files unreferenced (or orphaned) at least this long. Default one hour; 0 when no writer or reader can be running. */
  olderThanMs?: number;
  /** Only look under `data/<namespace>/`. */
  namespace?: string;
}

export interface VacuumResult {
  removed: string[];
}

function checkAge(olderThanMs: unknown): void {
  if (typeof olderThanMs !== "number" || !(olderThanMs >= 0))
    throw new AvaError(
      "INVALID_ARGUMENT",
      `vacuum: olderThanMs must be a number of milliseconds ≥ 0, got ${String(olderThanMs)}`,
    );
}

/**
 * Deletes the scheduled files whose grace period is over, then tells the catalog they are gone (a crash
 * between the two leaves them scheduled: deleting a missing file again is no error).
 */
export async function deleteScheduled(
  storage: Storage,
  { olderThanMs = 3_600_000, namespace }: VacuumOptions = {},
): Promise<string[]> {
  checkAge(olderThanMs);
  const state = await storage.catalog.current();
  const cutoff = clockOf(storage) - olderThanMs;
  const removed: string[] = [];
  for (const table of Object.values(state.tables)) {
    if (namespace !== undefined && table.namespace !== namespace) continue;
    const due = (table.doomed ?? []).filter((f) => f.sinceMs <= cutoff).map((f) => f.path);
    if (due.length === 0) continue;
    for (const path of due) if (!isInlinePath(path)) await storage.files.delete(path);
    await storage.catalog.commit([
      { op: "forgetFiles", namespace: table.namespace, table: table.name, paths: due },
    ]);
    removed.push(...due);
  }
  return removed;
}

/** Every path a kept snapshot can read, and those scheduled for deletion (not orphans: their time comes). */
function knownFiles(state: CatalogState): { known: Set<string>; tables: Set<string> } {
  const known = new Set<string>();
  const tables = new Set<string>();
  for (const table of Object.values(state.tables)) {
    tables.add(`data/${table.namespace}/${table.name}/`);
    for (const path of table.history.referencedFiles()) known.add(path);
    for (const f of table.doomed ?? []) known.add(f.path);
  }
  return { known, tables };
}

export async function vacuum(storage: Storage, options: VacuumOptions = {}): Promise<VacuumResult> {
  const { olderThanMs = 3_600_000, namespace } = options;
  checkAge(olderThanMs);
  // A catalog in doubt (a gap in its log, a lost log) throws here, before anything is deleted.
  const removed = await deleteScheduled(storage, { olderThanMs, ...(namespace ? { namespace } : {}) });
  const { known, tables } = knownFiles(await storage.catalog.current());
  const cutoff = Date.now() - olderThanMs;
  const files = await storage.files.list(namespace ? `data/${namespace}/` : "data/");
  // Files are only ever written for tables the catalog holds: one of a table it does not know means the
  // catalog lost history, and its files are the only copy left.
  const tableFolder = (path: string) => path.split("/").slice(0, 3).join("/") + "/";
  const stranger = files.find((f) => !tables.has(tableFolder(f.path)));
  if (stranger)
    throw new AvaError(
      "CATALOG_CORRUPT",
      `vacuum refused: ${stranger.path} belongs to no table of the catalog (was the catalog lost?); nothing was deleted`,
    );
  for (const file of files) {
    // Iceberg metadata (data/<ns>/<table>/metadata/) is referenced by no snapshot but is no orphan.
    if (file.path.split("/")[3] === "metadata") continue;
    if (!known.has(file.path) && file.modifiedMs <= cutoff) {
      await storage.files.delete(file.path);
      removed.push(file.path);
    }
  }
  removed.push(...(await storage.catalog.vacuum(olderThanMs)));
  return { removed };
}
