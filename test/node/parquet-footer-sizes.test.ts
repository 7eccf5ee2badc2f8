// Column sizes from a Parquet footer (src/parquet/footer-sizes.ts), against native DuckDB reading the same
// files' metadata; and what is not a whole Parquet file is refused as DATA_CORRUPT.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import * as A from "apache-arrow";
import { describe, expect, it } from "vitest";
import { columnSizes } from "../../src/parquet/footer-sizes.js";
import { encodeParquet } from "../../src/parquet/parquet.js";

const n = 3000;
const table = new A.Table({
  name: A.vectorFromArray(
    Array.from({ length: n }, (_, i) => `n${i % 17}`),
    new A.Utf8(),
  ),
  value: A.makeVector(Float64Array.from({ length: n }, (_, i) => Math.sin(i))),
  at: A.makeVector(BigInt64Array.from({ length: n }, (_, i) => BigInt(i) * 1000n)),
  tags: A.vectorFromArray(
    Array.from({ length: n }, (_, i) => (i % 3 ? ["a", "b"] : [])),
    new A.List(new A.Field("item", new A.Utf8(), true)),
  ),
});

async function duckdbSizes(bytes: Uint8Array): Promise<Map<string, number>> {
  const path = join(await mkdtemp(join(tmpdir(), "ava-footer-")), "f.parquet");
  await writeFile(path, bytes);
  const db = await DuckDBInstance.create(":memory:");
  const conn = await db.connect();
  try {
    const read = await conn.runAndReadAll(
      `SELECT split_part(path_in_schema, ', ', 1) AS col, sum(total_compressed_size)::BIGINT AS bytes FROM parquet_metadata('${path}') GROUP BY 1`,
    );
    return new Map(
      (read.getRowObjects() as { col: string; bytes: bigint }[]).map((r) => [r.col, Number(r.bytes)]),
    );
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

describe("Parquet column sizes from the footer", () => {
  it("are each column's compressed chunk bytes, nested columns summed under their name, in every codec", async () => {
    for (const compression of ["zstd", "uncompressed", "snappy"] as const) {
      const bytes = await encodeParquet(table, { compression });
      const sizes = columnSizes(bytes);
      expect([...sizes.keys()].sort(), compression).toEqual(["at", "name", "tags", "value"]);
      expect(sizes, compression).toEqual(await duckdbSizes(bytes));
    }
  });

  it("refuses what is not a whole Parquet file as DATA_CORRUPT", async () => {
    const bytes = await encodeParquet(table);
    const corrupt = { code: "DATA_CORRUPT" };
    expect(() => columnSizes(new Uint8Array(4))).toThrowError(expect.objectContaining(corrupt));
    expect(() => columnSizes(bytes.subarray(0, bytes.length - 1))).toThrowError(/no PAR1/);
    // A footer length past the file's start.
    const long = bytes.slice();
    new DataView(long.buffer).setUint32(long.length - 8, long.length, true);
    expect(() => columnSizes(long)).toThrowError(expect.objectContaining(corrupt));
    // The footer cut short: its last bytes gone, its length and magic kept.
    const length = new DataView(bytes.buffer, bytes.byteOffset).getUint32(bytes.length - 8, true);
    const cut = new Uint8Array(bytes.length - 40);
    cut.set(bytes.subarray(0, bytes.length - 48));
    cut.set(bytes.subarray(bytes.length - 8), cut.length - 8);
    new DataView(cut.buffer).setUint32(cut.length - 8, length - 40, true);
    expect(() => columnSizes(cut)).toThrowError(expect.objectContaining(corrupt));
  });
});
