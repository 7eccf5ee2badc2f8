// The catalog's data: namespaces, tables, snapshots and data files with column statistics. Plain JSON, so
// every catalog (memory, Node log files, IndexedDB) stores the same thing.
import type { FieldJson } from "../../schema/arrow-json.js";

/** A statistics value as JSON: bigints (Int64, timestamps) are tagged so they survive the round trip. */
export type StatValue = number | string | boolean | { bigint: string };

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
