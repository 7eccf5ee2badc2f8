// Change notifications: a listener called once per snapshot committed to a table (or to any table of a
// namespace), whichever context committed it — this one, another tab, a Worker, another process. The
// catalog reports newer states; each subscription remembers the last sequence number it reported per table,
// so every snapshot in between is reported once, in order, even when several commits arrive together.
import { AvaError } from "../errors.js";
import type { Snapshot, SnapshotOperation } from "../storage/catalog/model.js";
import type { CatalogState } from "../storage/catalog/state.js";
import type { Storage } from "../storage/types.js";

export interface CommitEvent {
  namespace: string;
  table: string;
  /** "namespace.table" */
  identifier: string;
  snapshotId: string;
  operation: SnapshotOperation;
  sequenceNumber: number;
  /** The committed snapshot (its files, row counts, schema version, run). */
  snapshot: Snapshot;
}

export type CommitListener = (event: CommitEvent) => void;

/**
 * Reports every snapshot committed after the subscription starts (as this context knows the catalog then)
 * to the tables `includes` accepts. Returns the unsubscribe function.
 */
export function subscribeCommits(
  storage: Storage,
  includes: (namespace: string, table: string) => boolean,
  listener: CommitListener,
  what: string,
): () => void {
  if (typeof listener !== "function")
    throw new AvaError(
      "INVALID_ARGUMENT",
      `${what}.subscribe() needs a listener function, got ${typeof listener}`,
    );
  const deliver = (event: CommitEvent) => {
    try {
      listener(event);
    } catch (err) {
      // A throwing listener misses nothing later: it is reported and the next snapshot is delivered.
      console.error(`avalanche-web: a ${what}.subscribe() listener threw`, err);
    }
  };
  /** Per table key: the last sequence number reported (or seen at the start). */
  let seen: Map<string, number> | undefined;
  let active = true;
  const baseline = (state: CatalogState) => {
    seen = new Map();
    for (const [key, t] of Object.entries(state.tables))
      if (includes(t.namespace, t.name)) seen.set(key, t.history.current?.sequenceNumber ?? 0);
  };
  const onState = (state: CatalogState) => {
    if (!active) return;
    if (!seen) return baseline(state);
    for (const [key, t] of Object.entries(state.tables)) {
      if (!includes(t.namespace, t.name)) continue;
      const last = seen.get(key) ?? 0;
      const current = t.history.current;
      if (!current || current.sequenceNumber <= last) continue;
      seen.set(key, current.sequenceNumber);
      const snapshots = t.history.snapshots;
      let from = snapshots.length;
      while (from > 0 && snapshots[from - 1]!.sequenceNumber > last) from--;
      for (const snapshot of snapshots.slice(from)) {
        if (!active) return;
        deliver({
          namespace: t.namespace,
          table: t.name,
          identifier: key,
          snapshotId: snapshot.id,
          operation: snapshot.operation,
          sequenceNumber: snapshot.sequenceNumber,
          snapshot,
        });
      }
    }
  };
  const held = storage.catalog.peek();
  if (held) baseline(held);
  const unsubscribe = storage.catalog.subscribe(onState);
  // Catch up now: commits of other contexts since the held state are reported, and watching begins.
  if (!held)
    storage.catalog.current().then(
      (state) => seen || baseline(state),
      () => {},
    );
  else void storage.catalog.current().catch(() => {});
  return () => {
    active = false;
    unsubscribe();
  };
}
