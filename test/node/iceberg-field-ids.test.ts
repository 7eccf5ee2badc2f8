// withIcebergFieldIds (iceberg/parquet-field-ids.ts) gives a table a schema whose fields carry Parquet field
// ids and keeps the table's own record batches, whose schema has none: every Parquet path must write the
// table's schema, not the batches'. Each path of encodeParquet is taken here (parquet-wasm's small-table
// stream, apache-arrow's stream writer, the sliced stream for large tables, the flat uncompressed writer),
// and DuckDB reads the ids back; the rows stay the same; a nested list keeps its element id.
import * as A from "apache-arrow";
import { describe, expect, it } from "vitest";
import { withIcebergFieldIds } from "../../src/iceberg/parquet-field-ids.js";
import type { IcebergSchema } from "../../src/iceberg/schema.js";
import { decodeParquet, encodeParquet } from "../../src/parquet/parquet.js";
import { parquetSchema } from "./fixtures/duckdb-parquet-schema.js";

const iceberg: IcebergSchema = {
  type: "struct",
  "schema-id": 0,
  fields: [
    { id: 1, name: "sensor", required: true, type: "string" },
    { id: 2, name: "value", required: true, type: "double" },
    {
      id: 3,
      name: "tags",
      required: false,
      type: { type: "list", "element-id": 4, element: "string", "element-required": false },
    },
  ],
};

/** `rows` rows in batches of at most `batchRows`, as several appends read back together arrive. */
function table(rows: number, batchRows: number, withTags: boolean): A.Table {
  const batches: A.Table[] = [];
  for (let at = 0; at < rows; at += batchRows) {
    const n = Math.min(batchRows, rows - at);
    const columns: Record<string, A.Vector> = {
      sensor: A.vectorFromArray(
        Array.from({ length: n }, (_, i) => `s${(at + i) % 7}`),
        new A.Utf8(),
      ),
      value: A.makeVector(Float64Array.from({ length: n }, (_, i) => at + i)),
    };
    if (withTags)
      columns.tags = A.vectorFromArray(
        Array.from({ length: n }, (_, i) => [`t${(at + i) % 3}`]),
        new A.List(new A.Field("item", new A.Utf8(), true)),
      );
    batches.push(new A.Table(columns));
  }
  return batches.reduce((a, b) => a.concat(b));
}

async function fieldIds(bytes: Uint8Array): Promise<Record<string, number | null>> {
  return Object.fromEntries((await parquetSchema(bytes)).map((e) => [e.name, e.field_id]));
}

describe("withIcebergFieldIds", () => {
  it.each([
    ["a small table (parquet-wasm, cached stream)", 10, 10, true, "zstd"],
    ["several small batches", 30, 10, true, "zstd"],
    ["a medium table (apache-arrow's stream writer)", 6000, 2500, true, "zstd"],
    ["a large table (sliced stream)", 70_000, 40_000, false, "zstd"],
    ["the flat uncompressed writer", 300, 100, false, "uncompressed"],
  ] as const)(
    "keeps the batches and writes the ids: %s",
    async (_, rows, batchRows, withTags, compression) => {
      const plain = table(rows, batchRows, withTags);
      const withIds = withIcebergFieldIds(plain, iceberg);
      // The same batches, not rebuilt.
      expect(withIds.batches.length).toBe(plain.batches.length);
      for (const [i, b] of withIds.batches.entries()) expect(b).toBe(plain.batches[i]);
      expect(withIds.schema.fields.map((f) => f.metadata.get("PARQUET:field_id"))).toEqual(
        withTags ? ["1", "2", "3"] : ["1", "2"],
      );
      const bytes = await encodeParquet(withIds, { compression });
      const ids = await fieldIds(bytes);
      expect(ids.sensor).toBe(1);
      expect(ids.value).toBe(2);
      if (withTags) {
        expect(ids.tags).toBe(3);
        expect(ids.item ?? ids.element).toBe(4);
      }
      const back = await decodeParquet(bytes);
      expect(back.numRows).toBe(rows);
      expect(back.getChild("value")!.get(rows - 1)).toBe(rows - 1);
      expect(back.getChild("sensor")!.get(rows - 1)).toBe(`s${(rows - 1) % 7}`);
    },
  );

  it("a column the Iceberg schema does not name keeps no id; the schema with ids is made once", async () => {
    const t = new A.Table({
      sensor: A.vectorFromArray(["a", "b"], new A.Utf8()),
      extra: A.makeVector(Int32Array.from([1, 2])),
    });
    const first = withIcebergFieldIds(t, iceberg);
    expect(withIcebergFieldIds(t, iceberg).schema).toBe(first.schema);
    const ids = await fieldIds(await encodeParquet(first));
    expect(ids.sensor).toBe(1);
    expect(ids.extra).toBeNull();
  });

  it("a table whose batches do not fit the schema is refused by apache-arrow, not written", () => {
    const t = new A.Table({ sensor: A.makeVector(Int32Array.from([1])) });
    const other = withIcebergFieldIds(
      new A.Table({ sensor: A.vectorFromArray(["a"], new A.Utf8()) }),
      iceberg,
    );
    expect(() => new A.Table(other.schema, t.batches)).toThrow(/schemas must be equivalent/);
  });
});
