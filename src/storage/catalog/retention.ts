// The catalog side of maintenance: snapshots leaving the history by retention (`expireSnapshots`), data
// files no snapshot references any more scheduled for deletion after a grace period and forgotten once
// deleted (`forgetFiles`), and the lease that lets one maintenance runner work per storage
// (`maintenanceLease`). Like every op, each is judged again on the state it lands on, so a consumer that
// moved back, or another runner, turns a planned change into a conflict rather than a loss.
import { AvaError } from "../../errors.js";
import type { DoomedFile, StreamState } from "./model.js";
import type { TableState } from "./state.js";

export interface ExpireOp {
  op: "expireSnapshots";
  namespace: string;
  table: string;
  /** Every snapshot up to this sequence number leaves the history; the current one never does. */
  throughSequence: number;
  /** When it happened: the grace period of the files it leaves unreferenced starts here. */
  timestampMs: number;
}

export interface ForgetFilesOp {
  /** Scheduled files that were deleted (or found gone): the schedule forgets them. */
  op: "forgetFiles";
  namespace: string;
  table: string;
  paths: string[];
}

export interface LeaseOp {
  /** Takes, renews (same holder) or releases (untilMs 0) the storage's maintenance lease. */
  op: "maintenanceLease";
  holder: string;
  untilMs: number;
  /** The time the holder judged by: a lease of another holder still valid then is a conflict. */
  nowMs: number;
}

export interface MaintenanceLease {
  holder: string;
  untilMs: number;
}

/** The lowest sequence number anything that reads a table's history in order still needs. */
export function neededFrom(
  table: TableState,
  streams: Readonly<Record<string, StreamState>>,
  cursors: Readonly<Record<string, string>>,
): number {
  const prefix = `${table.namespace}.${table.name}#`;
  const sequence = new Map(table.history.snapshots.map((s) => [s.id, s.sequenceNumber]));
  let needed = Number.POSITIVE_INFINITY;
  for (const [id, stream] of Object.entries(streams)) {
    if (!id.startsWith(prefix)) continue;
    // A consumer still takes the snapshot after its position, and any released from quarantine.
    needed = Math.min(needed, stream.position + 1);
    for (const r of stream.retry ?? []) needed = Math.min(needed, sequence.get(r) ?? needed);
  }
  // A cursor whose value names a snapshot of its table keeps that snapshot readable.
  for (const [id, value] of Object.entries(cursors))
    if (id.startsWith(prefix)) needed = Math.min(needed, sequence.get(value) ?? needed);
  return needed;
}

export function applyExpire(
  table: TableState,
  streams: Record<string, StreamState>,
  cursors: Readonly<Record<string, string>>,
  op: ExpireOp,
): TableState {
  const name = `table ${op.namespace}.${op.table}`;
  const current = table.history.current?.sequenceNumber ?? 0;
  if (!Number.isInteger(op.throughSequence) || op.throughSequence < 0 || op.throughSequence >= current)
    throw new AvaError(
      "INVALID_ARGUMENT",
      `${name}: snapshots through ${op.throughSequence} cannot expire (the current one, ${current}, is always kept)`,
    );
  if (op.throughSequence <= (table.history.base?.throughSequence ?? 0)) return table; // already done
  const needed = neededFrom(table, streams, cursors);
  if (op.throughSequence >= needed)
    throw new AvaError(
      "COMMIT_CONFLICT",
      `${name}: snapshot ${needed} is still needed by a stream consumer or cursor; expiry through ${op.throughSequence} refused`,
    );
  const before = table.history.referencedFiles();
  const history = table.history.expire(op.throughSequence);
  const after = history.referencedFiles();
  const doomed: DoomedFile[] = [...(table.doomed ?? [])];
  for (const path of before) if (!after.has(path)) doomed.push({ path, sinceMs: op.timestampMs });
  // Quarantined snapshots that expired can no longer be released: the consumers forget them.
  const gone = new Set(
    table.history.snapshots.filter((s) => s.sequenceNumber <= op.throughSequence).map((s) => s.id),
  );
  const prefix = `${op.namespace}.${op.table}#`;
  for (const [id, stream] of Object.entries(streams)) {
    if (!id.startsWith(prefix) || !stream.quarantined.some((s) => gone.has(s))) continue;
    const attempts = Object.fromEntries(Object.entries(stream.attempts).filter(([s]) => !gone.has(s)));
    streams[id] = { ...stream, attempts, quarantined: stream.quarantined.filter((s) => !gone.has(s)) };
  }
  return { ...table, history, doomed };
}

export function applyForget(table: TableState, op: ForgetFilesOp): TableState {
  const forget = new Set(op.paths);
  const doomed = (table.doomed ?? []).filter((f) => !forget.has(f.path));
  return { ...table, doomed };
}

export function applyLease(lease: MaintenanceLease | undefined, op: LeaseOp): MaintenanceLease | undefined {
  if (lease && lease.holder !== op.holder && lease.untilMs > op.nowMs)
    throw new AvaError(
      "COMMIT_CONFLICT",
      `maintenance is leased to ${lease.holder} until ${new Date(lease.untilMs).toISOString()}`,
    );
  return op.untilMs > 0 ? { holder: op.holder, untilMs: op.untilMs } : undefined;
}
