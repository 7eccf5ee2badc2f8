// Orphan removal: data files that no snapshot of any table references (left by a writer that failed or
// was killed before its commit), and the catalog's own leftovers. Files younger than `olderThanMs` are
// kept, because a writer may be between writing its file and committing it.
import { AvaError } from "../errors.js";
import type { Storage } from "../storage/types.js";

export interface VacuumOptions {
  /** Only remove orphans at least this old. Default one hour; 0 when no writer can be running. */
  olderThanMs?: number;
  /** Only look under `data/<namespace>/`. */
  namespace?: string;
}

export interface VacuumResult {
  removed: string[];
}

export async function vacuum(
  storage: Storage,
  { olderThanMs = 3_600_000, namespace }: VacuumOptions = {},
): Promise<VacuumResult> {
  // A catalog in doubt (a gap in its log, a lost log) throws here, before anything is deleted.
  const state = await storage.catalog.current();
  const referenced = new Set<string>();
  const tables = new Set<string>();
  for (const table of Object.values(state.tables)) {
    tables.add(`data/${table.namespace}/${table.name}/`);
    for (const s of table.history.snapshots) for (const f of s.addedFiles) referenced.add(f.path);
  }
  const cutoff = Date.now() - olderThanMs;
  const removed: string[] = [];
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
    if (!referenced.has(file.path) && file.modifiedMs <= cutoff) {
      await storage.files.delete(file.path);
      removed.push(file.path);
    }
  }
  removed.push(...(await storage.catalog.vacuum(olderThanMs)));
  return { removed };
}
