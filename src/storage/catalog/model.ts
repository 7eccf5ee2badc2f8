// The catalog's data: namespaces, tables, snapshots and data files with column statistics. Plain JSON, so
// every catalog (memory, Node log files, IndexedDB) stores the same thing.
import type { FieldJson } from "../../schema/arrow-json.js";

/**
 * A statistics value as JSON: bigints (Int64, timestamps) and the floats JSON cannot hold (±Infinity; JSON
 * writes them as null) are tagged so they survive the round trip.
 */
export type StatValue = number | string | boolean | { bigint: string } | { float: "Infinity" | "-Infinity" };

export interface ColumnStats {
  nullCount: number;
  min?: StatValue;
  max?: StatValue;
}

export interface DataFile {
  path: string;
  rowCount: number;
  sizeBytes: number;
  /** Per top-level scalar column; absent columns are never pruned on. */
  stats: Record<string, ColumnStats>;
}

export type SnapshotOperation = "append" | "overwrite" | "delete";

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
}

export interface TableMeta {
  namespace: string;
  name: string;
  uuid: string;
  schema: FieldJson[];
  rowLineage: boolean;
  properties: Record<string, string>;
  createdMs: number;
}

export interface NamespaceEntry {
  name: string;
  createdMs: number;
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
}
