// One snapshot's manifests and manifest list. An append adds one manifest of ADDED files and lists it before
// the parent's manifests, which are reused as they are (a "fast append": metadata written per commit stays
// small). A snapshot that removes files (overwrite, compaction) writes one manifest of the live files instead
// — ADDED for its own, EXISTING with explicit sequence numbers for older ones, DELETED for the removed — so
// time travel to any snapshot reads exactly the files live at it.
import type { ColumnStats } from "../storage/catalog/model.js";
import type { FileStore, WriteOptions } from "../storage/types.js";
import { ulid } from "../util/ids.js";
import type { AvroValue } from "./avro-datum.js";
import { type EncodedRecords, writeAvroFile, writeAvroFileAfter } from "./avro-file.js";
import { columnMetrics } from "./column-metrics.js";
import type { Locator } from "./location.js";
import {
  ADDED,
  DELETED,
  EXISTING,
  MANIFEST_ENTRY_SCHEMA,
  MANIFEST_FILE_SCHEMA,
  type ManifestFile,
} from "./manifest-schemas.js";
import type { IcebergSchema } from "./schema.js";
import { getOrCreate } from "../util/get-or-create.js";

/** A data file as a manifest names it: its Parquet file in the store (inlined rows are written out first). */
export interface ParquetFile {
  path: string;
  rowCount: number;
  sizeBytes: number;
  /** The catalog's column statistics of the file, under the names of the schema version it was written with. */
  stats?: Readonly<Record<string, ColumnStats>>;
  /** That schema version (absent: 0). */
  schemaId?: number;
}

export interface ManifestEntry {
  status: typeof EXISTING | typeof ADDED | typeof DELETED;
  file: ParquetFile;
  /** The snapshot (sequence number) that added the file: explicit for EXISTING and DELETED entries. */
  addedSequence: number;
}

export interface SnapshotFiles {
  files: FileStore;
  /** The table's metadata folder in the store. */
  folder: string;
  uri: Locator;
  /** The current schema, which the manifest's header names. */
  schema: IcebergSchema;
  /** Every schema version by id: a file's metrics use the field ids of the version it was written with. */
  schemas: ReadonlyMap<number, IcebergSchema>;
}

/** Metadata files are rebuilt by the next export when lost: they are written without fsync (see export.ts). */
const REBUILDABLE: WriteOptions = { durable: false };

/** A file being written: what the manifest list needs to know of it is known before the write ends. */
export interface Pending<T> {
  value: T;
  written: Promise<void>;
}

let token: string | undefined;
let written = 0;

/**
 * A name no other file of any writer has: this process's random ULID (made once) and a counter. Two
 * random ULIDs per commit cost more than the Avro encoding of both files (crypto.getRandomValues in Node).
 */
function uniqueName(): string {
  token ??= ulid();
  return `${token}_${(written++).toString(36)}`;
}

/** A manifest's Avro metadata, one object per table schema: its header is then encoded once. */
const manifestMetadata = new WeakMap<IcebergSchema, Record<string, string>>();

function manifestMetadataOf(schema: IcebergSchema): Record<string, string> {
  return getOrCreate(manifestMetadata, schema, () => ({
    schema: JSON.stringify(schema),
    "schema-id": String(schema["schema-id"]),
    "partition-spec": "[]",
    "partition-spec-id": "0",
    "format-version": "2",
    content: "data",
  }));
}

/** A write awaited later: marked handled now, so a failure before then is not an unhandled rejection. */
function pending(write: Promise<void>): Promise<void> {
  write.catch(() => {});
  return write;
}

/**
 * Writes a manifest of `entries` for the snapshot with sequence number `sequence` (also its snapshot id).
 * The write is left running: a commit writes its manifest and manifest list side by side.
 */
export function writeManifest(
  ctx: SnapshotFiles,
  sequence: number,
  entries: readonly ManifestEntry[],
): Pending<ManifestFile> {
  const records: AvroValue[] = entries.map((e) => ({
    status: e.status,
    // ADDED entries inherit their sequence numbers from the manifest list, as the spec asks of new files.
    snapshot_id: e.status === EXISTING ? e.addedSequence : sequence,
    sequence_number: e.status === ADDED ? null : e.addedSequence,
    file_sequence_number: e.status === ADDED ? null : e.addedSequence,
    data_file: {
      content: 0,
      file_path: ctx.uri(e.file.path),
      file_format: "PARQUET",
      partition: {},
      record_count: e.file.rowCount,
      file_size_in_bytes: e.file.sizeBytes,
      ...columnMetrics(e.file.stats, e.file.rowCount, ctx.schemas.get(e.file.schemaId ?? 0) ?? ctx.schema),
    },
  }));
  const bytes = writeAvroFile(MANIFEST_ENTRY_SCHEMA, manifestMetadataOf(ctx.schema), records, {
    header: true,
  });
  const path = `${ctx.folder}/${uniqueName()}-m0.avro`;
  const written = pending(ctx.files.write(path, bytes, REBUILDABLE));
  const count = (s: number) => entries.filter((e) => e.status === s);
  const rows = (s: number) => count(s).reduce((n, e) => n + e.file.rowCount, 0);
  const live = entries.filter((e) => e.status !== DELETED);
  const value: ManifestFile = {
    manifest_path: ctx.uri(path),
    manifest_length: bytes.length,
    partition_spec_id: 0,
    content: 0,
    sequence_number: sequence,
    min_sequence_number: Math.min(
      sequence,
      ...live.map((e) => (e.status === ADDED ? sequence : e.addedSequence)),
    ),
    added_snapshot_id: sequence,
    added_files_count: count(ADDED).length,
    existing_files_count: count(EXISTING).length,
    deleted_files_count: count(DELETED).length,
    added_rows_count: rows(ADDED),
    existing_rows_count: rows(EXISTING),
    deleted_rows_count: rows(DELETED),
    partitions: null,
  };
  return { value, written };
}

/** Each list's records as its file holds them, by the list (the manifests array) written. */
const listRecords = new WeakMap<readonly ManifestFile[], EncodedRecords>();

/** Whether `list` ends with every item of `tail`, in order (the same objects). */
function endsWith(list: readonly ManifestFile[], tail: readonly ManifestFile[]): boolean {
  const from = list.length - tail.length;
  if (from < 0) return false;
  for (let i = 0; i < tail.length; i++) if (list[from + i] !== tail[i]) return false;
  return true;
}

/**
 * Writes the snapshot's manifest list (left running); its value is the list's store path. When `manifests`
 * ends with the whole of `parentList` (an append that merged nothing) and that list was written by this
 * process, its records are copied from the parent's file bytes, not encoded again.
 */
export function writeManifestList(
  ctx: SnapshotFiles,
  sequence: number,
  parent: number | undefined,
  manifests: readonly ManifestFile[],
  parentList?: readonly ManifestFile[],
): Pending<string> {
  const metadata: Record<string, string> = {
    "snapshot-id": String(sequence),
    "sequence-number": String(sequence),
    "format-version": "2",
  };
  if (parent !== undefined) metadata["parent-snapshot-id"] = String(parent);
  const path = `${ctx.folder}/snap-${sequence}-${uniqueName()}.avro`;
  const after = parentList && endsWith(manifests, parentList) ? listRecords.get(parentList) : undefined;
  const own = after ? manifests.slice(0, manifests.length - parentList!.length) : manifests;
  // A manifest is listed again by every later snapshot until a merge: its record's bytes are kept too.
  const { file, records } = writeAvroFileAfter(
    MANIFEST_FILE_SCHEMA,
    metadata,
    own as unknown as AvroValue[],
    after,
    { records: true },
  );
  listRecords.set(manifests, records);
  return { value: path, written: pending(ctx.files.write(path, file, REBUILDABLE)) };
}
