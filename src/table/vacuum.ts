// Orphan removal: data files that no snapshot of any table references (left by a writer that failed or
// was killed before its commit), and the catalog's own leftovers. Files younger than `olderThanMs` are
// kept, because a writer may be between writing its file and committing it.
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
  const state = await storage.catalog.current();
  const referenced = new Set<string>();
  for (const table of Object.values(state.tables)) {
    for (const s of table.history.snapshots) for (const f of s.addedFiles) referenced.add(f.path);
  }
  const cutoff = Date.now() - olderThanMs;
  const removed: string[] = [];
  for (const file of await storage.files.list(namespace ? `data/${namespace}/` : "data/")) {
    if (!referenced.has(file.path) && file.modifiedMs <= cutoff) {
      await storage.files.delete(file.path);
      removed.push(file.path);
    }
  }
  removed.push(...(await storage.catalog.vacuum(olderThanMs)));
  return { removed };
}
