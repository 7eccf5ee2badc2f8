// Administering an append_scan consumer (the original's ProgressStore): what it has yet to take, moving it
// to another position, releasing a quarantined snapshot to be taken again. Each change is one catalog
// commit checked against the position read, so it never races a run silently.
import { AvaError } from "../errors.js";
import { pendingOf, streamStateOf } from "../storage/catalog/state.js";
import type { StreamState } from "../storage/catalog/model.js";
import type { Storage } from "../storage/types.js";
import { type BoundTableDeclaration, isBoundTable } from "../table/declare.js";
import { checkKey } from "../util/names.js";

export interface PendingSnapshot {
  snapshotId: string;
  sequenceNumber: number;
  /** Failed attempts so far. */
  attempts: number;
  /** Released from quarantine (taken before the snapshots after the position). */
  released: boolean;
}

function check(what: string, table: BoundTableDeclaration, key: string): void {
  if (!isBoundTable(table))
    throw new AvaError(
      "INVALID_ARGUMENT",
      `${what} takes a table of a namespace definition, such as Def.tables.x`,
    );
  checkKey(`${what} on ${table.identifier}`, key);
}

/** The snapshots the consumer `key` of `table` will take, in the order it takes them. */
export async function pendingSnapshots(
  storage: Storage,
  table: BoundTableDeclaration,
  key: string,
): Promise<PendingSnapshot[]> {
  check("pendingSnapshots", table, key);
  const state = await storage.catalog.current();
  const entry = state.tables[table.identifier];
  if (!entry) throw new AvaError("NOT_FOUND", `table ${table.identifier} does not exist`);
  const stream = streamStateOf(state.streams, table.namespace, table.name, key);
  return pendingOf(entry.history.snapshots, stream).map((s) => ({
    snapshotId: s.id,
    sequenceNumber: s.sequenceNumber,
    attempts: stream.attempts[s.id] ?? 0,
    released: s.sequenceNumber <= stream.position,
  }));
}

async function administer(
  storage: Storage,
  table: BoundTableDeclaration,
  key: string,
  change: { reset: number } | { release: string },
): Promise<StreamState> {
  const state = await storage.catalog.current();
  const { position } = streamStateOf(state.streams, table.namespace, table.name, key);
  await storage.catalog.commit([
    {
      op: "streamAdmin",
      namespace: table.namespace,
      table: table.name,
      key,
      expectedPosition: position,
      ...change,
    },
  ]);
  const after = await storage.catalog.current();
  return streamStateOf(after.streams, table.namespace, table.name, key);
}

/**
 * Moves the consumer to `position` (a sequence number: 0 takes everything again, the current snapshot's
 * skips everything so far); attempts and releases are forgotten.
 */
export async function resetStream(
  storage: Storage,
  table: BoundTableDeclaration,
  key: string,
  { position }: { position: number },
): Promise<StreamState> {
  check("resetStream", table, key);
  return administer(storage, table, key, { reset: position });
}

/** Releases a quarantined snapshot: the consumer takes it again next, with its attempts counted anew. */
export async function releaseSnapshot(
  storage: Storage,
  table: BoundTableDeclaration,
  key: string,
  snapshotId: string,
): Promise<StreamState> {
  check("releaseSnapshot", table, key);
  if (typeof snapshotId !== "string")
    throw new AvaError(
      "INVALID_ARGUMENT",
      `releaseSnapshot: snapshotId must be a string, got ${typeof snapshotId}`,
    );
  return administer(storage, table, key, { release: snapshotId });
}
