// Iceberg's Avro files are encoded in one reused buffer, with headers and repeated records' bytes kept
// (src/iceberg/avro-file.ts, avro-datum.ts): every file must still read back as exactly its records, a
// datum that does not fit its schema must be refused by name, and a refused file must leave nothing behind
// in the next one.
import { describe, expect, it } from "vitest";
import type { AvroValue } from "../../src/iceberg/avro-datum.js";
import { readAvroFile, writeAvroFile } from "../../src/iceberg/avro-file.js";
import {
  MANIFEST_ENTRY_SCHEMA,
  MANIFEST_FILE_SCHEMA,
  type ManifestFile,
} from "../../src/iceberg/manifest-schemas.js";
import { type SnapshotFiles, writeManifestList } from "../../src/iceberg/manifests.js";
import type { FileStore } from "../../src/storage/types.js";

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

  it("a manifest list that repeats its parent's list copies the parent's records: the same bytes as encoding them all", async () => {
    const written = new Map<string, Uint8Array>();
    const files = {
      write: async (path: string, bytes: Uint8Array) => {
        written.set(path, bytes.slice());
      },
    } as unknown as FileStore;
    const ctx = { files, folder: "m", uri: (p: string) => `file:///t/${p}` } as unknown as SnapshotFiles;
    const bytesOf = async (list: { value: string; written: Promise<void> }) => {
      await list.written;
      return written.get(list.value)!;
    };
    // A chain of appends, each listing its own manifest before its parent's (as export.ts does), with a
    // merge in between (the list then keeps only some of its parent's manifests) and a list read back from
    // a file (an array this process never wrote: nothing to copy from).
    let parent: ManifestFile[] = [];
    for (let n = 1; n <= 40; n++) {
      const own = manifestFile(n) as ManifestFile;
      const manifests = n === 20 ? [own, ...parent.filter((_, i) => i % 2 === 0)] : [own, ...parent];
      const reused = await bytesOf(writeManifestList(ctx, n, n - 1, manifests, parent));
      const fresh = await bytesOf(writeManifestList(ctx, n, n - 1, [...manifests]));
      expect(reused, `list ${n}`).toEqual(fresh);
      const back = readAvroFile(reused, `list ${n}`);
      expect(back.records).toEqual(manifests);
      expect(back.metadata["parent-snapshot-id"]).toBe(String(n - 1));
      parent =
        n === 30 ? (readAvroFile(reused, "read back").records as unknown as ManifestFile[]) : manifests;
    }
    // A list whose new manifest does not fit the schema is refused, and the next list is whole.
    const bad = { ...manifestFile(41), added_files_count: "one" } as unknown as ManifestFile;
    expect(() => writeManifestList(ctx, 41, 40, [bad, ...parent], parent)).toThrowError(
      expect.objectContaining({
        code: "INVALID_ARGUMENT",
        message: "Avro datum manifest_file[0].added_files_count: expected an int",
      }),
    );
    const next = [manifestFile(41) as ManifestFile, ...parent];
    const after = readAvroFile(await bytesOf(writeManifestList(ctx, 41, 40, next, parent)), "41");
    expect(after.records).toEqual(next);
  });
});
