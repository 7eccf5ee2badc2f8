// The catalog as a pure state machine: `applyOps(state, ops)` checks each op's preconditions against the
// state and returns the next state. Every catalog implementation commits by writing the ops of version N+1
// only if no one else did, so replaying a log through applyOps always rebuilds the same state.
import { AvaError } from "../../errors.js";
import type { FieldJson } from "../../schema/arrow-json.js";
import { TableHistory } from "./history.js";
import {
  type DataFile,
  type DoomedFile,
  type NamespaceEntry,
  type OutboxState,
  type RunRecord,
  type SchemaVersion,
  type Snapshot,
  schemaVersionsOf,
  type StreamState,
  type TableMeta,
  tableKey,
} from "./model.js";
import { applyOutboxOp, type OutboxOp } from "./outbox-state.js";
import {
  applyExpire,
  applyForget,
  applyLease,
  type ExpireOp,
  type ForgetFilesOp,
  type LeaseOp,
  type MaintenanceLease,
} from "./retention.js";
import { RunLog } from "./run-log.js";

export interface SnapshotDraft {
  id: string;
  operation: Snapshot["operation"];
  timestampMs: number;
  addedFiles: DataFile[];
  /** Overwrite: every file live when the commit lands is removed. */
  removeAll?: boolean;
  /**
   * Compaction: the files its merged files replace; all must still be live when the commit lands (else
   * COMMIT_CONFLICT: another compaction or an overwrite got there first).
   */
  removedFiles?: string[];
  runId?: string;
  nodeSlug?: string;
  workflowName?: string;
  /**
   * A writer's name for this append (an ingest request's Idempotency-Key): the commit is refused with
   * COMMIT_CONFLICT when a snapshot of the table already carries it, so a re-sent batch is never appended twice.
   */
  idempotencyKey?: string;
}

export type CatalogOp =
  | OutboxOp
  | { op: "createNamespace"; namespace: string; timestampMs: number }
  | {
      op: "createTable";
      namespace: string;
      table: string;
      uuid: string;
      schema: FieldJson[];
      rowLineage: boolean;
      properties: Record<string, string>;
      timestampMs: number;
    }
  | {
      /**
       * push() of a changed declaration: the table's next schema version, planned (and judged compatible)
       * by planEvolution from version `fromSchemaId`. The log records the outcome, so replay never re-judges.
       */
      op: "evolveSchema";
      namespace: string;
      table: string;
      fromSchemaId: number;
      version: SchemaVersion;
    }
  | {
      op: "commitSnapshot";
      namespace: string;
      table: string;
      snapshot: SnapshotDraft;
      /** When set, the commit fails with COMMIT_CONFLICT unless this is still the current snapshot. */
      expectedCurrentId?: string | null;
    }
  | {
      /**
       * An append_scan consumer moves past snapshots it consumed (in the same commit as the consuming node's
       * appends), or counts a failed attempt and, at `maxAttempts`, quarantines the snapshot and moves past.
       */
      op: "streamProgress";
      namespace: string;
      table: string;
      key: string;
      /** The position the consumer read from: anything else means another run moved it first. */
      expectedPosition: number;
      consumedThrough?: number;
      /** Released snapshots (in `retry`) consumed by this commit. */
      retried?: string[];
      failed?: { snapshotId: string; sequenceNumber: number; maxAttempts: number };
    }
  | {
      /**
       * Stream administration (the original's ProgressStore): move a consumer to `reset` (a sequence
       * number; attempts and releases forgotten), or `release` a quarantined snapshot to be taken again.
       */
      op: "streamAdmin";
      namespace: string;
      table: string;
      key: string;
      expectedPosition: number;
      reset?: number;
      release?: string;
    }
  | {
      /** A manual checkpoint kept with a table, set in the same commit as the rows it accounts for. */
      op: "setCursor";
      namespace: string;
      table: string;
      key: string;
      value: string;
      /** The value the writer read: anything else means another writer moved the cursor first. */
      expected: string | null;
    }
  | {
      /** The table leaves the catalog (its data files become unreferenced, removed after the commit). */
      op: "dropTable";
      namespace: string;
      table: string;
    }
  | { op: "dropNamespace"; namespace: string }
  | {
      /**
       * A scheduled workflow's tick, claimed by the server that will run it: refused (COMMIT_CONFLICT) when
       * this tick or a later one was claimed already, so each tick runs once across servers and restarts.
       */
      op: "claimTick";
      workflow: string;
      tickMs: number;
      runId: string;
      claimedBy: string;
      timestampMs: number;
    }
  | {
      op: "recordRun";
      run: RunRecord;
      /** The run starts: refused if a run with this id was recorded before. */
      create?: boolean;
    }
  | ExpireOp
  | ForgetFilesOp
  | LeaseOp;

/** A table's metadata and its snapshot history (with the live files derived from it). */
export interface TableState extends TableMeta {
  history: TableHistory;
  /** Files no kept snapshot references, awaiting deletion after the grace period (see retention.ts). */
  doomed?: DoomedFile[];
}

export interface CatalogState {
  /** The log version this state reflects; 0 = empty. */
  version: number;
  namespaces: Readonly<Record<string, NamespaceEntry>>;
  tables: Readonly<Record<string, TableState>>;
  /** Workflow runs, by run id. */
  runs: RunLog;
  /** append_scan consumers' progress, by `namespace.table#key`. */
  streams: Readonly<Record<string, StreamState>>;
  /** Cursor values, by `namespace.table#key`. */
  cursors: Readonly<Record<string, string>>;
  /** Live streams' outboxes, by stream name (see outbox-state.ts). */
  outboxes: Readonly<Record<string, OutboxState>>;
  /** Scheduled workflows' latest claimed tick, by workflow name (absent: none was ever claimed). */
  schedules?: Readonly<Record<string, ScheduleState>>;
  /** Who runs background maintenance for this storage, and until when (absent: nobody). */
  maintenance?: MaintenanceLease;
}

/** The newest tick of a scheduled workflow that a server claimed, and the run it started for it. */
export interface ScheduleState {
  tickMs: number;
  runId: string;
  claimedBy: string;
  claimedMs: number;
}

export interface CommitResult {
  version: number;
  /** The snapshots made, in the order of the commitSnapshot ops. */
  snapshots: Snapshot[];
}

export const EMPTY_STATE: CatalogState = {
  version: 0,
  namespaces: {},
  tables: {},
  runs: RunLog.empty(),
  streams: {},
  cursors: {},
  outboxes: {},
};

export function streamKey(namespace: string, table: string, key: string): string {
  return `${namespace}.${table}#${key}`;
}

/** Where the append_scan consumer `key` of a table stands; one that never ran is at position 0. */
export function streamStateOf(
  streams: Readonly<Record<string, StreamState>>,
  namespace: string,
  table: string,
  key: string,
): StreamState {
  return streams[streamKey(namespace, table, key)] ?? { position: 0, attempts: {}, quarantined: [] };
}

/** Whether a snapshot brings rows a consumer has not seen: a compaction only rewrites rows it has. */
export function addsNewRows(s: Snapshot): boolean {
  return s.addedFiles.length > 0 && s.operation !== "compact";
}

/**
 * What a consumer at `stream` takes next, in order: snapshots released from quarantine, then those after
 * its position that added rows.
 */
export function pendingOf(snapshots: readonly Snapshot[], { position, retry = [] }: StreamState): Snapshot[] {
  return [
    ...snapshots.filter((s) => retry.includes(s.id)),
    ...snapshots.filter((s) => s.sequenceNumber > position && addsNewRows(s)),
  ];
}

function applyStreamProgress(
  streams: Record<string, StreamState>,
  op: Extract<CatalogOp, { op: "streamProgress" }>,
): void {
  const id = streamKey(op.namespace, op.table, op.key);
  const current = streamStateOf(streams, op.namespace, op.table, op.key);
  if (current.position !== op.expectedPosition) {
    // A failure noted after another run moved on changes nothing; a consumption would process twice.
    if (op.failed) return;
    throw new AvaError(
      "COMMIT_CONFLICT",
      `stream ${op.key} of ${op.namespace}.${op.table} moved from position ${op.expectedPosition} to ${current.position}: another run consumed those snapshots first`,
    );
  }
  const retry = current.retry ?? [];
  const gone = (op.retried ?? []).filter((s) => !retry.includes(s));
  if (gone.length > 0) {
    if (op.failed) return;
    throw new AvaError(
      "COMMIT_CONFLICT",
      `stream ${op.key} of ${op.namespace}.${op.table}: released snapshot ${gone[0]} was consumed by another run first`,
    );
  }
  const next: StreamState = { ...current, attempts: { ...current.attempts } };
  if (op.consumedThrough !== undefined) next.position = op.consumedThrough;
  if (op.retried) next.retry = retry.filter((s) => !op.retried!.includes(s));
  if (op.failed) {
    const { snapshotId, sequenceNumber, maxAttempts } = op.failed;
    const attempts = (next.attempts[snapshotId] ?? 0) + 1;
    next.attempts[snapshotId] = attempts;
    if (attempts >= maxAttempts) {
      next.quarantined = [...next.quarantined, snapshotId];
      // A released snapshot leaves the retry list; a pending one is skipped by moving past it.
      if (retry.includes(snapshotId)) next.retry = retry.filter((s) => s !== snapshotId);
      else next.position = sequenceNumber;
    }
  }
  if (next.retry?.length === 0) delete next.retry;
  streams[id] = next;
}

function applyStreamAdmin(
  streams: Record<string, StreamState>,
  table: TableState | undefined,
  op: Extract<CatalogOp, { op: "streamAdmin" }>,
): void {
  const name = `stream ${op.key} of ${op.namespace}.${op.table}`;
  if (!table) throw new AvaError("NOT_FOUND", `table ${op.namespace}.${op.table} does not exist`);
  const current = streamStateOf(streams, op.namespace, op.table, op.key);
  if (current.position !== op.expectedPosition)
    throw new AvaError(
      "COMMIT_CONFLICT",
      `${name} moved from position ${op.expectedPosition} to ${current.position} meanwhile`,
    );
  const next: StreamState = { ...current, attempts: { ...current.attempts } };
  if (op.reset !== undefined) {
    const last = table.history.current?.sequenceNumber ?? 0;
    if (!Number.isInteger(op.reset) || op.reset < 0 || op.reset > last)
      throw new AvaError("INVALID_ARGUMENT", `${name}: position ${op.reset} is not between 0 and ${last}`);
    const sequence = new Map(table.history.snapshots.map((s) => [s.id, s.sequenceNumber]));
    next.position = op.reset;
    next.attempts = {};
    next.quarantined = current.quarantined.filter((s) => (sequence.get(s) ?? 0) <= op.reset!);
    delete next.retry;
  }
  if (op.release !== undefined) {
    if (!next.quarantined.includes(op.release))
      throw new AvaError("NOT_FOUND", `${name} has no quarantined snapshot ${op.release}`);
    next.quarantined = next.quarantined.filter((s) => s !== op.release);
    delete next.attempts[op.release];
    next.retry = [...(next.retry ?? []), op.release];
  }
  streams[streamKey(op.namespace, op.table, op.key)] = next;
}

function sumRows(files: readonly DataFile[]): number {
  return files.reduce((n, f) => n + f.rowCount, 0);
}

function replacedFiles(table: TableState, paths: readonly string[]): DataFile[] {
  if (paths.length === 0) return [];
  const live = new Map(table.history.liveFiles.map((f) => [f.path, f]));
  const missing = paths.find((p) => !live.has(p));
  if (missing !== undefined)
    throw new AvaError(
      "COMMIT_CONFLICT",
      `table ${table.namespace}.${table.name}: file ${missing} is no longer live (another compaction or an overwrite replaced it first)`,
    );
  return paths.map((p) => live.get(p)!);
}

function applySnapshot(table: TableState, draft: SnapshotDraft): { table: TableState; snapshot: Snapshot } {
  const parent = table.history.current;
  const removed = draft.removeAll ? table.history.liveFiles : replacedFiles(table, draft.removedFiles ?? []);
  const snapshot: Snapshot = {
    id: draft.id,
    parentId: parent?.id ?? null,
    sequenceNumber: (parent?.sequenceNumber ?? 0) + 1,
    timestampMs: draft.timestampMs,
    operation: draft.operation,
    addedFiles: draft.addedFiles,
    removedFiles: removed.map((f) => f.path),
    addedRows: sumRows(draft.addedFiles),
    removedRows: sumRows(removed),
    totalRows: (parent?.totalRows ?? 0) - sumRows(removed) + sumRows(draft.addedFiles),
    schemaId: table.schemas?.at(-1)?.id ?? 0,
  };
  if (draft.runId !== undefined) snapshot.runId = draft.runId;
  if (draft.nodeSlug !== undefined) snapshot.nodeSlug = draft.nodeSlug;
  if (draft.workflowName !== undefined) snapshot.workflowName = draft.workflowName;
  if (draft.idempotencyKey !== undefined) snapshot.idempotencyKey = draft.idempotencyKey;
  let history = table.history.append(snapshot, draft.removeAll === true);
  if (draft.operation === "compact") history = history.withFlushed(flushedSlices(removed, draft.addedFiles));
  return { table: { ...table, history }, snapshot };
}

/**
 * The inlined files a compaction (or flush) merged, each as its slice of the file it became. compactTable
 * lists the files it replaces group by group, in the order of the files they became, each group's rows in
 * order: so the slices follow from the row counts. A compaction not laid out so maps nothing (the
 * snapshots that added its inlined files keep their payloads).
 */
function flushedSlices(removed: readonly DataFile[], added: readonly DataFile[]): Map<string, DataFile> {
  const slices = new Map<string, DataFile>();
  let i = 0;
  for (const into of added) {
    let offset = 0;
    for (; i < removed.length && offset < into.rowCount; i++) {
      const f = removed[i]!;
      if (f.inline !== undefined) {
        const { path, rowCount, sizeBytes } = into;
        const slice: DataFile = {
          path: f.path,
          rowCount: f.rowCount,
          sizeBytes: f.sizeBytes,
          // No statistics (absent ones prune nothing): a scan of an older snapshot reads the flushed file for
          // any of its slices, and kept in every snapshot they would be most of what the catalog holds.
          stats: {},
          flushedTo: { path, rowCount, sizeBytes, offset },
        };
        if (into.schemaId !== undefined) slice.schemaId = into.schemaId;
        slices.set(f.path, slice);
      }
      offset += f.rowCount;
    }
    if (offset !== into.rowCount) return new Map();
  }
  return i === removed.length ? slices : new Map();
}

function evolveSchema(table: TableState, op: Extract<CatalogOp, { op: "evolveSchema" }>): TableState {
  const versions = schemaVersionsOf(table);
  const current = versions.at(-1)!;
  if (current.id !== op.fromSchemaId) {
    // Another push got there first: a no-op when it evolved the table the same way.
    if (JSON.stringify(current.fields) === JSON.stringify(op.version.fields)) return table;
    throw new AvaError(
      "COMMIT_CONFLICT",
      `table ${op.namespace}.${op.table} moved to schema version ${current.id} while this push planned from version ${op.fromSchemaId}`,
    );
  }
  if (op.version.id !== current.id + 1)
    throw new AvaError("INVALID_ARGUMENT", `schema version ${op.version.id} does not follow ${current.id}`);
  return { ...table, schema: op.version.fields, schemas: [...versions, op.version] };
}

/**
 * The records of a state that applyOps may write, each copied on its first write: an append copies the
 * tables only, not the namespaces, stream positions and cursors it leaves alone (a copy of each per
 * commit grew with every consumer and cursor the catalog holds).
 */
class Writable<T> {
  #record: Readonly<Record<string, T>>;
  #copied = false;

  constructor(record: Readonly<Record<string, T>>) {
    this.#record = record;
  }

  /** For reading: the state's record, or this call's copy once written. */
  get read(): Readonly<Record<string, T>> {
    return this.#record;
  }

  /** For writing: this call's own copy. */
  get write(): Record<string, T> {
    if (!this.#copied) {
      this.#record = { ...this.#record };
      this.#copied = true;
    }
    return this.#record as Record<string, T>;
  }
}

export function applyOps(
  state: CatalogState,
  ops: readonly CatalogOp[],
): { state: CatalogState; snapshots: Snapshot[] } {
  const namespaceRecord = new Writable(state.namespaces);
  const tableRecord = new Writable(state.tables);
  const streamRecord = new Writable(state.streams);
  const cursorRecord = new Writable(state.cursors);
  const snapshots: Snapshot[] = [];
  let runs = state.runs;
  let schedules = state.schedules;
  let outboxes = state.outboxes;
  let maintenance = state.maintenance;
  for (const op of ops) {
    if (op.op === "maintenanceLease") {
      maintenance = applyLease(maintenance, op);
      continue;
    }
    if (op.op === "outboxAdd" || op.op === "outboxRemove" || op.op === "outboxLease") {
      if (outboxes === state.outboxes) outboxes = { ...state.outboxes };
      applyOutboxOp(outboxes as Record<string, OutboxState>, op);
      continue;
    }
    if (op.op === "claimTick") {
      const last = schedules?.[op.workflow];
      if (last && last.tickMs >= op.tickMs)
        throw new AvaError(
          "COMMIT_CONFLICT",
          `tick ${new Date(op.tickMs).toISOString()} of workflow ${op.workflow} was already claimed (latest claimed: ${new Date(last.tickMs).toISOString()} by ${last.claimedBy}, run ${last.runId})`,
        );
      const claimed: ScheduleState = {
        tickMs: op.tickMs,
        runId: op.runId,
        claimedBy: op.claimedBy,
        claimedMs: op.timestampMs,
      };
      schedules = { ...schedules, [op.workflow]: claimed };
      continue;
    }
    if (op.op === "streamProgress") {
      applyStreamProgress(streamRecord.write, op);
      continue;
    }
    if (op.op === "streamAdmin") {
      applyStreamAdmin(streamRecord.write, tableRecord.read[tableKey(op.namespace, op.table)], op);
      continue;
    }
    if (op.op === "setCursor") {
      const id = streamKey(op.namespace, op.table, op.key);
      const value = cursorRecord.read[id] ?? null;
      if (value !== op.expected)
        throw new AvaError(
          "COMMIT_CONFLICT",
          `cursor ${op.key} of ${op.namespace}.${op.table} moved from ${JSON.stringify(op.expected)} to ${JSON.stringify(value)} meanwhile`,
        );
      cursorRecord.write[id] = op.value;
      continue;
    }
    if (op.op === "recordRun") {
      if (op.create && runs.has(op.run.runId))
        throw new AvaError("INVALID_ARGUMENT", `a run with id ${op.run.runId} was already recorded`);
      runs = runs.with(op.run);
      continue;
    }
    if (op.op === "createNamespace") {
      if (!namespaceRecord.read[op.namespace])
        namespaceRecord.write[op.namespace] = { name: op.namespace, createdMs: op.timestampMs };
      continue;
    }
    if (op.op === "dropNamespace") {
      if (!namespaceRecord.read[op.namespace])
        throw new AvaError("NOT_FOUND", `namespace ${op.namespace} does not exist`);
      const left = Object.values(tableRecord.read).filter((t) => t.namespace === op.namespace);
      if (left.length > 0)
        throw new AvaError(
          "INVALID_ARGUMENT",
          `namespace ${op.namespace} still has tables (${left.map((t) => t.name).join(", ")}); drop them in the same commit`,
        );
      delete namespaceRecord.write[op.namespace];
      continue;
    }
    const key = tableKey(op.namespace, op.table);
    const existing = tableRecord.read[key];
    if (op.op === "createTable") {
      if (!namespaceRecord.read[op.namespace])
        throw new AvaError("NOT_FOUND", `namespace ${op.namespace} does not exist`);
      if (!existing) {
        const { op: _, table, timestampMs, ...rest } = op;
        tableRecord.write[key] = {
          ...rest,
          name: table,
          createdMs: timestampMs,
          history: TableHistory.empty(),
        };
      } else if (
        JSON.stringify(existing.schema) !== JSON.stringify(op.schema) ||
        existing.rowLineage !== op.rowLineage
      ) {
        throw new AvaError(
          "SCHEMA_MISMATCH",
          `table ${key} exists with a different schema or row lineage setting than its declaration: push() again to evolve it`,
        );
      }
      continue;
    }
    if (!existing)
      throw new AvaError("NOT_FOUND", `table ${key} does not exist; call push() on its namespace first`);
    if (op.op === "dropTable") {
      delete tableRecord.write[key];
      // Consumers' progress and cursors kept with the table go with it: a table pushed again starts anew.
      const prefix = `${key}#`;
      for (const id of Object.keys(streamRecord.read))
        if (id.startsWith(prefix)) delete streamRecord.write[id];
      for (const id of Object.keys(cursorRecord.read))
        if (id.startsWith(prefix)) delete cursorRecord.write[id];
      continue;
    }
    if (op.op === "evolveSchema") {
      tableRecord.write[key] = evolveSchema(existing, op);
      continue;
    }
    if (op.op === "expireSnapshots") {
      tableRecord.write[key] = applyExpire(existing, streamRecord.write, cursorRecord.read, op);
      continue;
    }
    if (op.op === "forgetFiles") {
      tableRecord.write[key] = applyForget(existing, op);
      continue;
    }
    const current = existing.history.current?.id ?? null;
    if (op.expectedCurrentId !== undefined && op.expectedCurrentId !== current) {
      throw new AvaError(
        "COMMIT_CONFLICT",
        `table ${key} moved to snapshot ${current} while this commit expected ${op.expectedCurrentId}`,
      );
    }
    const idempotencyKey = op.snapshot.idempotencyKey;
    if (idempotencyKey !== undefined) {
      const earlier = existing.history.withIdempotencyKey(idempotencyKey);
      if (earlier)
        throw new AvaError(
          "COMMIT_CONFLICT",
          `table ${key}: idempotency key ${JSON.stringify(idempotencyKey)} was already committed by snapshot ${earlier.id}`,
        );
    }
    const applied = applySnapshot(existing, op.snapshot);
    tableRecord.write[key] = applied.table;
    snapshots.push(applied.snapshot);
  }
  const next: CatalogState = {
    version: state.version + 1,
    namespaces: namespaceRecord.read,
    tables: tableRecord.read,
    runs,
    streams: streamRecord.read,
    cursors: cursorRecord.read,
    outboxes,
  };
  if (schedules) next.schedules = schedules;
  if (maintenance) next.maintenance = maintenance;
  return { state: next, snapshots };
}
