// The catalog's data: namespaces, tables, snapshots and data files with column statistics. Plain JSON, so
// every catalog (memory, Node log files, IndexedDB) stores the same thing.
import type { FieldJson } from "../../schema/arrow-json.js";
import type { LogLine } from "../../workflow/logger.js";

/**
 * A statistics value as JSON: bigints (Int64, timestamps) and the floats JSON cannot hold (±Infinity; JSON
 * writes them as null) are tagged so they survive the round trip.
 */
export type StatValue = number | string | boolean | { bigint: string } | { float: "Infinity" | "-Infinity" };

export interface ColumnStats {
  nullCount: number;
  min?: StatValue;
  max?: StatValue;
  /**
   * The column's bytes in the Parquet file (its chunks, compressed, page headers included), for Iceberg
   * manifests' column_sizes. Kept for the files of appends to tables with Iceberg metadata and of compaction.
   */
  bytes?: number;
}

export interface DataFile {
  path: string;
  rowCount: number;
  sizeBytes: number;
  /** Per top-level scalar column; absent columns are never pruned on. */
  stats: Record<string, ColumnStats>;
  /** The table's schema version the file was written with (absent: 0, the first). */
  schemaId?: number;
  /** An inlined small append: its rows as a base64 Arrow IPC stream, kept in the catalog (no file is written). */
  inline?: string;
  /** CRC-32 of the inlined IPC stream (absent in files inlined before it was kept). */
  inlineCrc?: number;
  /**
   * An inlined file since flushed: its rows are rows [offset, offset + rowCount) of the data file `path`
   * (of `rowCount` rows and `sizeBytes` bytes). The snapshots that added it keep this instead of the
   * payload, so a flush takes the rows out of the catalog while time travel still reads them — DuckLake's
   * flush keeps history the same way.
   */
  flushedTo?: FlushedSlice;
}

export interface FlushedSlice {
  path: string;
  rowCount: number;
  sizeBytes: number;
  offset: number;
}

/** "compact": files merged into fewer, the same rows (see table.compact()); consumers skip it. */
export type SnapshotOperation = "append" | "overwrite" | "delete" | "compact";

/** A data file no snapshot references any more, deleted once the grace period since `sinceMs` is over. */
export interface DoomedFile {
  path: string;
  sinceMs: number;
}

export interface Snapshot {
  id: string;
  parentId: string | null;
  sequenceNumber: number;
  timestampMs: number;
  operation: SnapshotOperation;
  addedFiles: DataFile[];
  removedFiles: string[];
  addedRows: number;
  removedRows: number;
  totalRows: number;
  /** The run and node that made it, when made inside a workflow run. */
  runId?: string;
  nodeSlug?: string;
  workflowName?: string;
  /** The table's schema version when the snapshot was committed (absent: 0). */
  schemaId?: number;
  /** The writer's idempotency key, unique within the table's (unexpired) snapshots. */
  idempotencyKey?: string;
}

/**
 * One version of a table's user schema. Columns keep a numeric identity across versions, as Iceberg's
 * field ids do: a rename keeps the id, so files written before it are still read by identity, not name.
 */
export interface SchemaVersion {
  /** 0 for the schema the table was created with, then one more per evolution. */
  id: number;
  fields: FieldJson[];
  /** Column name -> field id, for every top-level user column of this version. */
  fieldIds: Record<string, number>;
  timestampMs: number;
  /**
   * By field id: the value rows written before a column existed read as (a required column added with a
   * zod `.default()`, Iceberg's initial-default). Absent: such rows read as null.
   */
  initialDefaults?: Record<string, DefaultValue>;
}

/** A column's initial default as JSON: bigints (Int64) and Dates are tagged so they survive the round trip. */
export type DefaultValue = string | number | boolean | { bigint: string } | { dateMs: number };

export interface TableMeta {
  namespace: string;
  name: string;
  uuid: string;
  /** The current user schema (= the newest of `schemas`). */
  schema: FieldJson[];
  /** Every schema version, oldest first; absent on a table never evolved (see schemaVersionsOf). */
  schemas?: SchemaVersion[];
  rowLineage: boolean;
  properties: Record<string, string>;
  createdMs: number;
}

export interface NamespaceEntry {
  name: string;
  createdMs: number;
}

/** A table's schema versions, oldest first; a table never evolved has one, with field ids 1..n by position. */
export function schemaVersionsOf(meta: Pick<TableMeta, "schema" | "schemas" | "createdMs">): SchemaVersion[] {
  if (meta.schemas) return meta.schemas;
  const fieldIds = Object.fromEntries(meta.schema.map((f, i) => [f.name, i + 1]));
  return [{ id: 0, fields: meta.schema, fieldIds, timestampMs: meta.createdMs }];
}

export function tableKey(namespace: string, table: string): string {
  return `${namespace}.${table}`;
}

/** "abandoned": recorded as running, but its lease ran out (the process that ran it died); set when read. */
export type RunStatus = "running" | "success" | "failed" | "cancelled" | "abandoned";
export type NodeStatus = "success" | "failed" | "skipped" | "cancelled" | "not_run";

/** An error as it is recorded and as it crosses Workers: plain data. */
export interface ErrorInfo {
  name: string;
  message: string;
  code?: string;
  stack?: string;
}

export interface NodeRecord {
  nodeId: string;
  name: string;
  role: "step" | "source" | "dest";
  status: NodeStatus;
  startedMs?: number;
  finishedMs?: number;
  error?: ErrorInfo;
  /** What the node wrote to its `ava.logger()` (the first MAX_LOG_LINES lines). */
  logs?: LogLine[];
  /** Lines written past that limit, counted and not kept. */
  droppedLogs?: number;
}

/** A workflow run as the catalog records it: when it starts (status "running") and when it ends. */
export interface RunRecord {
  runId: string;
  workflowName: string;
  status: RunStatus;
  startedMs: number;
  finishedMs?: number;
  /** While running: the run's process renews this; a running record past it is reported as abandoned. */
  leaseUntilMs?: number;
  metadata: Record<string, unknown>;
  /** By node slug. */
  nodes: Record<string, NodeRecord>;
  /** The run this one reran part of. */
  rerunOf?: string;
}

/**
 * An append_scan consumer's progress through one table: every snapshot up to `position` (a sequence
 * number) is consumed or quarantined; failed attempts are counted per snapshot.
 */
export interface StreamState {
  position: number;
  attempts: Record<string, number>;
  quarantined: string[];
  /** Snapshots before `position` released from quarantine: taken again, before the later ones. */
  retry?: string[];
}

/** A batch of a live stream kept in its outbox (an Avro stream file) until the server acknowledges it. */
export interface OutboxBatch {
  /** The batch id: also the Idempotency-Key it is sent with. */
  id: string;
  /** Its file in the outbox storage. */
  path: string;
  points: number;
  bytes: number;
  createdMs: number;
}

/** Who sends a stream's outbox, until when (a process renews it; a dead one's lease runs out). */
export interface OutboxLease {
  owner: string;
  untilMs: number;
}

/** A live stream's outbox: its unacknowledged batches, oldest first, and what its cap policy dropped. */
export interface OutboxState {
  batches: OutboxBatch[];
  lease?: OutboxLease;
  droppedBatches: number;
  droppedPoints: number;
}
