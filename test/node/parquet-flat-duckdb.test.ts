// The JS flat Parquet writer's encodings read by native DuckDB (a second independent reader, beside
// parquet-wasm in test/shared/parquet-flat.test.ts): timestamps and integers as DELTA_BINARY_PACKED —
// narrow steps, series that start over, steps that wrap around the int64 range — and a column of one value
// as a one-entry dictionary come back exactly, with the encodings DuckDB reports.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import * as A from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { writeFlatParquet } from "../../src/parquet/flat-writer.js";

let dir: string | undefined;
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const int64s = (type: A.Int64 | A.TimestampNanosecond, values: bigint[]) =>
  A.makeVector(
    A.makeData({ type, length: values.length, nullCount: 0, data: BigInt64Array.from(values) } as never),
  );

describe("flat Parquet files in DuckDB", () => {
  it("reads delta-encoded and one-value columns exactly", async () => {
    const n = 5_000;
    const T0 = 1_757_500_000_000_000_000n;
    const restarts = Array.from({ length: n }, (_, i) => T0 + BigInt(i % 700) * 1_000_000n); // a series every 700 rows
    const jitter = Array.from({ length: n }, (_, i) => BigInt(i) * 1000n + BigInt((i * 7919) % 333) - 166n);
    const extremes = Array.from({ length: n }, (_, i) =>
      i % 3 === 0 ? -(2n ** 63n) : i % 3 === 1 ? 2n ** 63n - 1n : 0n,
    );
    const table = new A.Table({
      ts: int64s(new A.TimestampNanosecond("UTC"), restarts),
      jitter: int64s(new A.Int64(), jitter),
      extremes: int64s(new A.Int64(), extremes),
      same: int64s(
        new A.Int64(),
        Array.from({ length: n }, () => 42n),
      ),
    });
    dir = await mkdtemp(join(tmpdir(), "ava-flat-duck-"));
    const path = join(dir, "flat.parquet");
    await writeFile(path, writeFlatParquet(table, "test"));
    const db = await DuckDBInstance.create(":memory:", {
      autoinstall_known_extensions: "false",
      autoload_known_extensions: "false",
    });
    const conn = await db.connect();
    try {
      const rows = (
        await conn.runAndReadAll(
          `SELECT epoch_ns(ts) AS ts, jitter, extremes, same FROM read_parquet('${path}', file_row_number = true) ORDER BY file_row_number`,
        )
      ).getRowObjects() as { ts: bigint; jitter: bigint; extremes: bigint; same: bigint }[];
      expect(rows.map((r) => r.ts)).toEqual(restarts);
      expect(rows.map((r) => r.jitter)).toEqual(jitter);
      expect(rows.map((r) => r.extremes)).toEqual(extremes);
      expect(new Set(rows.map((r) => r.same))).toEqual(new Set([42n]));
      const encodings = (
        await conn.runAndReadAll(
          `SELECT DISTINCT path_in_schema AS col, encodings FROM parquet_metadata('${path}') ORDER BY 1`,
        )
      ).getRowObjects();
      expect(encodings).toEqual([
        { col: "extremes", encodings: "DELTA_BINARY_PACKED, RLE" },
        { col: "jitter", encodings: "DELTA_BINARY_PACKED, RLE" },
        { col: "same", encodings: "PLAIN, RLE, RLE_DICTIONARY" },
        { col: "ts", encodings: "DELTA_BINARY_PACKED, RLE" },
      ]);
    } finally {
      conn.closeSync();
      db.closeSync();
    }
  });
});
