// The metadata file's bytes are made incrementally (src/iceberg/metadata-json.ts): whatever the history did
// between two versions — grew, lost its oldest snapshots, was read back from disk — the bytes must parse to
// exactly the metadata object.
import { describe, expect, it } from "vitest";
import { metadataBytes } from "../../src/iceberg/metadata-json.js";
import { type IcebergSnapshot, type TableMetadata, tableMetadata } from "../../src/iceberg/table-metadata.js";
import { icebergSchemas } from "../../src/iceberg/schema.js";

const meta = {
  uuid: "01J0000000000000000000000A",
  schema: [{ name: "a", type: { id: "utf8" as const }, nullable: true }],
  createdMs: 0,
  rowLineage: false,
  properties: { owner: "test" },
};
const schemas = icebergSchemas(meta, "t");

function snapshot(n: number): IcebergSnapshot {
  return {
    "snapshot-id": n,
    "sequence-number": n,
    "timestamp-ms": 1_000 + n,
    "manifest-list": `s3://b/t/metadata/snap-${n}.avro`,
    summary: { operation: "append", "added-records": String(n), note: `ü "quoted" ${n}` },
    "schema-id": 0,
    ...(n > 1 ? { "parent-snapshot-id": n - 1 } : {}),
  };
}

function version(snapshots: IcebergSnapshot[], log: TableMetadata["metadata-log"]): TableMetadata {
  return tableMetadata(meta as never, schemas, snapshots, "s3://b/t", 5_000 + snapshots.length, log);
}

const parsed = (m: TableMetadata) => JSON.parse(new TextDecoder().decode(metadataBytes(m)));

describe("metadata JSON made incrementally", () => {
  it("parses to the metadata as the history grows, loses its oldest snapshots, is read back, and its head grows", () => {
    const all = Array.from({ length: 40 }, (_, i) => snapshot(i + 1));
    const log: TableMetadata["metadata-log"] = [];
    for (let n = 1; n <= 30; n++) {
      const m = version(all.slice(0, n), log.slice(-5));
      expect(parsed(m)).toEqual(JSON.parse(JSON.stringify(m)));
      log.push({ "timestamp-ms": n, "metadata-file": `s3://b/t/metadata/v${n}.metadata.json` });
    }
    // Expired snapshots: the list starts later, and the bytes follow.
    const expired = version(all.slice(10, 31), log);
    expect(parsed(expired)).toEqual(JSON.parse(JSON.stringify(expired)));
    expect(parsed(expired).snapshots.map((s: IcebergSnapshot) => s["snapshot-id"])[0]).toBe(11);
    // The same snapshots as new objects (metadata read back from disk), then one more on top.
    const reread = all.slice(0, 31).map((s) => JSON.parse(JSON.stringify(s)) as IcebergSnapshot);
    const grown = version([...reread, all[31]!], log);
    expect(parsed(grown)).toEqual(JSON.parse(JSON.stringify(grown)));
    // A head that outgrows the room kept before the snapshots (a long property), then a short one again.
    const long = tableMetadata(
      { ...meta, properties: { owner: "x".repeat(5_000) } } as never,
      schemas,
      [...reread, all[31]!],
      "s3://b/t",
      6_000,
      log,
    );
    expect(parsed(long)).toEqual(JSON.parse(JSON.stringify(long)));
    const after = version([...reread, ...all.slice(31, 33)], log);
    expect(parsed(after)).toEqual(JSON.parse(JSON.stringify(after)));
    // An empty table: no snapshots.
    expect(parsed(version([], []))).toEqual(JSON.parse(JSON.stringify(version([], []))));
  });
});
