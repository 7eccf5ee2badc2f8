// Iceberg's Avro files are encoded in one reused buffer, with headers and repeated records' bytes kept
// (src/iceberg/avro-file.ts, avro-datum.ts): every file must still read back as exactly its records, a
// datum that does not fit its schema must be refused by name, and a refused file must leave nothing behind
// in the next one.
import { describe, expect, it } from "vitest";
import type { AvroValue } from "../../src/iceberg/avro-datum.js";
import { readAvroFile, writeAvroFile } from "../../src/iceberg/avro-file.js";
import { MANIFEST_ENTRY_SCHEMA, MANIFEST_FILE_SCHEMA } from "../../src/iceberg/manifest-schemas.js";

function manifestFile(n: number) {
  return {
    manifest_path: `s3://b/t/metadata/m${n}.avro`,
    manifest_length: 1000 + n,
    partition_spec_id: 0,
    content: 0,
    sequence_number: n,
    min_sequence_number: n,
    added_snapshot_id: n,
    added_files_count: 1,
    existing_files_count: 0,
    deleted_files_count: 0,
    added_rows_count: 10 * n,
    existing_rows_count: 0,
    deleted_rows_count: 0,
    partitions: null,
  };
}

function entry(path: string, rows: number | string): AvroValue {
  return {
    status: 1,
    snapshot_id: 7,
    sequence_number: null,
    file_sequence_number: null,
    data_file: {
      content: 0,
      file_path: path,
      file_format: "PARQUET",
      partition: {},
      record_count: rows,
      file_size_in_bytes: 123,
      column_sizes: [{ key: 1, value: 99 }],
      value_counts: [{ key: 1, value: 10 }],
      null_value_counts: [{ key: 1, value: 0 }],
      lower_bounds: [{ key: 1, value: new Uint8Array([1, 2]) }],
      upper_bounds: [],
    },
  };
}

describe("Iceberg Avro files", () => {
  it("read back exactly, with repeated records' bytes and shared headers reused", () => {
    const listed = [manifestFile(1)];
    for (let n = 2; n <= 5; n++) {
      listed.unshift(manifestFile(n));
      const bytes = writeAvroFile(MANIFEST_FILE_SCHEMA, { "snapshot-id": String(n) }, listed, {
        records: true,
      });
      const file = readAvroFile(bytes, `list ${n}`);
      expect(file.metadata["snapshot-id"]).toBe(String(n));
      expect(file.records).toEqual(listed);
    }
    const shared = { schema: "{}", content: "data" };
    for (const path of ["a.parquet", "b.parquet"]) {
      const file = readAvroFile(
        writeAvroFile(MANIFEST_ENTRY_SCHEMA, shared, [entry(path, 10)], { header: true }),
        path,
      );
      expect(file.metadata.content).toBe("data");
      expect(file.records).toEqual([entry(path, 10)]);
    }
  });

  it("refuses a datum that does not fit, naming where, and the next file is whole", () => {
    const bad = [entry("a.parquet", 10), entry("b.parquet", "ten")];
    expect(() => writeAvroFile(MANIFEST_ENTRY_SCHEMA, { content: "data" }, bad)).toThrowError(
      expect.objectContaining({
        code: "INVALID_ARGUMENT",
        message: "Avro datum manifest_entry[1].data_file.record_count: expected a long",
      }),
    );
    const list = [{ ...manifestFile(1), partitions: [{ contains_null: "no" }] }];
    expect(() => writeAvroFile(MANIFEST_FILE_SCHEMA, {}, list as never)).toThrowError(
      /manifest_file\[0\]\.partitions\[0\]\.contains_null: expected a boolean/,
    );
    const good = [entry("c.parquet", 3)];
    expect(
      readAvroFile(writeAvroFile(MANIFEST_ENTRY_SCHEMA, { content: "data" }, good), "c").records,
    ).toEqual(good);
  });
});
