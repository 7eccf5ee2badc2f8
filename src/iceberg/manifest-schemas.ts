// The Avro schemas of Iceberg v2's manifest files and manifest lists, with the spec's field ids (table
// spec, "Manifests" and "Manifest Lists"). Only unpartitioned tables are written, so the partition tuple
// is an empty record. Column metrics are there but for nan_value_counts, which the catalog's statistics
// do not have (see column-metrics.ts).
import type { AvroField, AvroRecord, AvroType } from "./avro-datum.js";

const optional = (name: string, type: AvroType, id: number): AvroField => ({
  name,
  type: ["null", type],
  "field-id": id,
  default: null,
});
const required = (name: string, type: AvroType, id: number): AvroField => ({ name, type, "field-id": id });

/** map<int, T> with the spec's key and value ids: an array of records named k<key>_v<value>, as Java names them. */
const idMap = (name: string, id: number, keyId: number, valueId: number, value: AvroType): AvroField =>
  optional(
    name,
    {
      type: "array",
      logicalType: "map",
      items: {
        type: "record",
        name: `k${keyId}_v${valueId}`,
        fields: [required("key", "int", keyId), required("value", value, valueId)],
      },
    },
    id,
  );

/** manifest_entry: one data file and its status in the snapshot that wrote the manifest. */
export const MANIFEST_ENTRY_SCHEMA: AvroRecord = {
  type: "record",
  name: "manifest_entry",
  fields: [
    required("status", "int", 0),
    optional("snapshot_id", "long", 1),
    optional("sequence_number", "long", 3),
    optional("file_sequence_number", "long", 4),
    required(
      "data_file",
      {
        type: "record",
        name: "r2",
        fields: [
          required("content", "int", 134),
          required("file_path", "string", 100),
          required("file_format", "string", 101),
          required("partition", { type: "record", name: "r102", fields: [] }, 102),
          required("record_count", "long", 103),
          required("file_size_in_bytes", "long", 104),
          idMap("column_sizes", 108, 117, 118, "long"),
          idMap("value_counts", 109, 119, 120, "long"),
          idMap("null_value_counts", 110, 121, 122, "long"),
          idMap("lower_bounds", 125, 126, 127, "bytes"),
          idMap("upper_bounds", 128, 129, 130, "bytes"),
        ],
      },
      2,
    ),
  ],
};

/** manifest_file: one manifest of a snapshot, with its counts (so readers can skip it). */
export const MANIFEST_FILE_SCHEMA: AvroRecord = {
  type: "record",
  name: "manifest_file",
  fields: [
    required("manifest_path", "string", 500),
    required("manifest_length", "long", 501),
    required("partition_spec_id", "int", 502),
    required("content", "int", 517),
    required("sequence_number", "long", 515),
    required("min_sequence_number", "long", 516),
    required("added_snapshot_id", "long", 503),
    required("added_files_count", "int", 504),
    required("existing_files_count", "int", 505),
    required("deleted_files_count", "int", 506),
    required("added_rows_count", "long", 512),
    required("existing_rows_count", "long", 513),
    required("deleted_rows_count", "long", 514),
    optional(
      "partitions",
      {
        type: "array",
        "element-id": 508,
        items: {
          type: "record",
          name: "r508",
          fields: [
            required("contains_null", "boolean", 509),
            optional("contains_nan", "boolean", 518),
            optional("lower_bound", "bytes", 510),
            optional("upper_bound", "bytes", 511),
          ],
        },
      },
      507,
    ),
  ],
};

/** manifest_entry status. */
export const EXISTING = 0;
export const ADDED = 1;
export const DELETED = 2;

/** What a manifest list says about one manifest (the fields of manifest_file this library reads back). */
export interface ManifestFile {
  manifest_path: string;
  manifest_length: number;
  partition_spec_id: number;
  content: number;
  sequence_number: number;
  min_sequence_number: number;
  added_snapshot_id: number;
  added_files_count: number;
  existing_files_count: number;
  deleted_files_count: number;
  added_rows_count: number;
  existing_rows_count: number;
  deleted_rows_count: number;
  partitions: null;
}
