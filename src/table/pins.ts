// Snapshots held open in this JavaScript context (a pinned SQL handle, `db.at(...)`): retention never
// expires a held snapshot nor any after it. Holds are per context; another tab or process protects its
// readers by the retention's age and the grace period of deferred deletion.
import type { Storage, StorageDescriptor } from "../storage/types.js";

const holds = new Map<string, Map<string, number>>();

const keyOf = (descriptor: StorageDescriptor, identifier: string) =>
  `${JSON.stringify(descriptor)}\u0000${identifier}`;

/** Holds `snapshotId` of table `identifier` until the returned function is called (once). */
export function pinSnapshot(storage: Storage, identifier: string, snapshotId: string): () => void {
  const key = keyOf(storage.descriptor, identifier);
  const ids = holds.get(key) ?? new Map<string, number>();
  holds.set(key, ids);
  ids.set(snapshotId, (ids.get(snapshotId) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const n = (ids.get(snapshotId) ?? 1) - 1;
    if (n > 0) ids.set(snapshotId, n);
    else ids.delete(snapshotId);
    if (ids.size === 0) holds.delete(key);
  };
}

/** The snapshot ids of table `identifier` held in this context. */
export function pinnedSnapshots(storage: Storage, identifier: string): ReadonlySet<string> {
  return new Set(holds.get(keyOf(storage.descriptor, identifier))?.keys() ?? []);
}
