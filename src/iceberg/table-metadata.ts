// The table metadata JSON (table spec, "Table Metadata Fields", format v2): schemas with field ids, the
// unpartitioned spec, the kept snapshots with their summaries, the current snapshot, and the name mapping
// that lets readers find columns in Parquet files written without field ids.
//
// What format v3 would need (not written yet): "format-version": 3 and v3's required "next-row-id" here;
// the nanosecond types timestamp_ns / timestamptz_ns in schema.ts (our Arrow ns timestamps are refused
// today); row lineage — a snapshot's "first-row-id" and "added-rows", first_row_id in manifest lists and
// data files (our _ava_* provenance columns stay ordinary columns beside it); and readers that accept v3
// (icebird and Apache Avro's schemas in the tests would have to follow). Deletes stay copy-on-write here, so
// v3's deletion vectors are not needed.
import type { Snapshot, TableMeta } from "../storage/catalog/model.js";
import type { ManifestFile } from "./manifest-schemas.js";
import type { IcebergSchema, IcebergSchemas } from "./schema.js";
import { getOrCreate } from "../util/get-or-create.js";

export interface IcebergSnapshot {
  "snapshot-id": number;
  "parent-snapshot-id"?: number;
  "sequence-number": number;
  "timestamp-ms": number;
  "manifest-list": string;
  summary: Record<string, string>;
  "schema-id": number;
}

export interface TableMetadata {
  "format-version": 2;
  "table-uuid": string;
  location: string;
  "last-sequence-number": number;
  "last-updated-ms": number;
  "last-column-id": number;
  schemas: IcebergSchema[];
  "current-schema-id": number;
  "partition-specs": { "spec-id": number; fields: never[] }[];
  "default-spec-id": number;
  "last-partition-id": number;
  properties: Record<string, string>;
  "current-snapshot-id"?: number;
  refs?: Record<string, { "snapshot-id": number; type: "branch" }>;
  snapshots: IcebergSnapshot[];
  "snapshot-log": { "timestamp-ms": number; "snapshot-id": number }[];
  "metadata-log": { "timestamp-ms": number; "metadata-file": string }[];
  "sort-orders": { "order-id": number; fields: never[] }[];
  "default-sort-order-id": number;
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * Tables are identified by ULIDs, Iceberg tables by UUIDs (engines parse them): a ULID is 128 bits, so its
 * bits spelled as a UUID are the same identity, and the same table always gets the same UUID.
 */
export function asUuid(id: string): string {
  return getOrCreate(uuids, id, spelledAsUuid);
}

/** Made once per table: the spelling works bit by bit, and every export asks for it. */
const uuids = new Map<string, string>();

function spelledAsUuid(id: string): string {
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return id.toLowerCase();
  let bits = 0n;
  for (const c of id.toUpperCase()) bits = (bits << 5n) | BigInt(Math.max(0, CROCKFORD.indexOf(c)));
  const hex = BigInt.asUintN(128, bits).toString(16).padStart(32, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Our operations in Iceberg's words: a compaction changes no row, which Iceberg calls "replace". */
function operationOf(s: Snapshot): string {
  if (s.operation === "compact") return "replace";
  if (s.operation === "overwrite" && s.addedFiles.length === 0) return "delete";
  return s.operation;
}

/** The snapshot summary (spec Appendix F), with our snapshot id and the run that made it. */
export function snapshotSummary(s: Snapshot, manifests: readonly ManifestFile[]): Record<string, string> {
  // A plain loop: a list has up to a hundred manifests, and a reduce made an object for each on every commit.
  const live = { files: 0, rows: 0 };
  for (const m of manifests) {
    live.files += m.added_files_count + m.existing_files_count;
    live.rows += m.added_rows_count + m.existing_rows_count;
  }
  const summary: Record<string, string> = {
    operation: operationOf(s),
    "added-data-files": String(s.addedFiles.length),
    "deleted-data-files": String(s.removedFiles.length),
    "added-records": String(s.addedRows),
    "deleted-records": String(s.removedRows),
    "added-files-size": String(s.addedFiles.reduce((n, f) => n + f.sizeBytes, 0)),
    "total-data-files": String(live.files),
    "total-records": String(live.rows),
    "total-delete-files": "0",
    "total-position-deletes": "0",
    "total-equality-deletes": "0",
    "avalanche.snapshot-id": s.id,
  };
  if (s.runId !== undefined) summary["avalanche.run-id"] = s.runId;
  if (s.workflowName !== undefined) summary["avalanche.workflow-name"] = s.workflowName;
  if (s.nodeSlug !== undefined) summary["avalanche.node-slug"] = s.nodeSlug;
  return summary;
}

/**
 * The table's properties, one object per catalog properties object and schema version's name mapping (the
 * mapping's text, made once, is in every metadata version), so the metadata file's bytes for them are made
 * once too (metadata-json.ts).
 */
const propertiesMade = new WeakMap<object, WeakMap<object, Record<string, string>>>();
const NO_PROPERTIES = {};

function propertiesOf(meta: TableMeta, schemas: IcebergSchemas): Record<string, string> {
  const byMapping = getOrCreate(propertiesMade, meta.properties ?? NO_PROPERTIES, () => new WeakMap());
  return getOrCreate(byMapping, schemas.nameMapping, () => ({
    ...meta.properties,
    "schema.name-mapping.default": JSON.stringify(schemas.nameMapping),
    "write.format.default": "parquet",
  }));
}

type LogEntry = TableMetadata["snapshot-log"][number];
const logEntries = new WeakMap<IcebergSnapshot, LogEntry>();

/** One object per snapshot, so the metadata file's bytes for it are made once (see metadata-json.ts). */
function logEntryOf(s: IcebergSnapshot): LogEntry {
  return getOrCreate(logEntries, s, () => ({
    "timestamp-ms": s["timestamp-ms"],
    "snapshot-id": s["snapshot-id"],
  }));
}

export function tableMetadata(
  meta: TableMeta,
  schemas: IcebergSchemas,
  snapshots: IcebergSnapshot[],
  location: string,
  nowMs: number,
  metadataLog: TableMetadata["metadata-log"],
  /** The snapshot log of `snapshots`' first entries when known (the previous version's): extended in place. */
  snapshotLog: TableMetadata["snapshot-log"] = [],
): TableMetadata {
  for (let i = snapshotLog.length; i < snapshots.length; i++) snapshotLog.push(logEntryOf(snapshots[i]!));
  const current = snapshots.at(-1);
  const out: TableMetadata = {
    "format-version": 2,
    "table-uuid": asUuid(meta.uuid),
    location,
    "last-sequence-number": current?.["sequence-number"] ?? 0,
    "last-updated-ms": nowMs,
    "last-column-id": schemas.lastColumnId,
    schemas: schemas.schemas,
    "current-schema-id": schemas.currentSchemaId,
    "partition-specs": [{ "spec-id": 0, fields: [] }],
    "default-spec-id": 0,
    // No partition field was ever assigned: ids start at 1000, so the last assigned is 999.
    "last-partition-id": 999,
    properties: propertiesOf(meta, schemas),
    snapshots,
    "snapshot-log": snapshotLog,
    "metadata-log": metadataLog,
    "sort-orders": [{ "order-id": 0, fields: [] }],
    "default-sort-order-id": 0,
  };
  if (current) {
    out["current-snapshot-id"] = current["snapshot-id"];
    out.refs = { main: { "snapshot-id": current["snapshot-id"], type: "branch" } };
  }
  return out;
}
