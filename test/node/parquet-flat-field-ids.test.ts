// The flat Parquet writer (parquet/flat-writer.ts) writes an Arrow field's `PARQUET:field_id` metadata as its
// schema element's field_id, as parquet-wasm does: Iceberg readers find columns by these ids. Read back by
// native DuckDB's parquet_schema() (the Parquet schema itself, not the Arrow schema in the footer) and by
// parquet-wasm.
import * as A from "apache-arrow";
import { describe, expect, it } from "vitest";
import { isFlatWritable, writeFlatParquet } from "../../src/parquet/flat-writer.js";
import { decodeParquet } from "../../src/parquet/parquet.js";
import { expectAvaError } from "../shared/fixtures.js";
import { parquetSchema } from "./fixtures/duckdb-parquet-schema.js";

const id = (n: string) => new Map([["PARQUET:field_id", n]]);

function table(fields: A.Field[]): A.Table {
  const n = 3;
  const children = fields.map((f) => {
    if (A.DataType.isDictionary(f.type)) return A.vectorFromArray(["a", "b", "a"], f.type).data[0]!;
    if (A.DataType.isList(f.type)) return A.vectorFromArray([null, null, null], f.type).data[0]!;
    if (A.DataType.isUtf8(f.type)) return A.vectorFromArray(["x", null, "z"], f.type).data[0]!;
    if (A.DataType.isFloat(f.type))
      return A.makeData({ type: f.type, length: n, data: new Float64Array([1, 2, 3]) });
    return A.makeData({ type: f.type as A.Int64, length: n, data: new BigInt64Array([1n, 2n, 3n]) });
  });
  const schema = new A.Schema(fields);
  return new A.Table(
    schema,
    new A.RecordBatch(schema, A.makeData({ type: new A.Struct(fields), length: n, nullCount: 0, children })),
  );
}

describe("flat Parquet writer, field ids", () => {
  it("writes PARQUET:field_id metadata into the schema elements (list elements included); columns without stay without", async () => {
    const t = table([
      new A.Field("channel", new A.Dictionary(new A.Utf8(), new A.Int32()), false, id("1")),
      new A.Field("timestamp", new A.TimestampNanosecond("UTC"), false, id("2")),
      new A.Field("ts_us", new A.TimestampMicrosecond("UTC"), false, id("8")),
      new A.Field("double", new A.Float64(), true, id("3")),
      new A.Field("long", new A.Int64(), true),
      new A.Field("string", new A.Utf8(), true, id("5")),
      new A.Field(
        "double_array",
        new A.List(new A.Field("item", new A.Float64(), false, id("7"))),
        true,
        id("6"),
      ),
    ]);
    expect(isFlatWritable(t)).toBe(true);
    const bytes = writeFlatParquet(t, "test");
    const elements = await parquetSchema(bytes);
    expect(elements.map((e) => [e.name, e.field_id])).toEqual([
      ["schema", null],
      ["channel", 1],
      ["timestamp", 2],
      ["ts_us", 8],
      ["double", 3],
      ["long", null],
      ["string", 5],
      ["double_array", 6],
      ["list", null],
      ["item", 7],
    ]);
    // The same file still reads back whole, ids in the fields' metadata.
    const back = await decodeParquet(bytes);
    expect(back.numRows).toBe(3);
    expect(back.schema.fields.map((f) => f.metadata.get("PARQUET:field_id") ?? null)).toEqual([
      "1",
      "2",
      "8",
      "3",
      null,
      "5",
      "6",
    ]);
    expect(back.getChild("channel")!.toArray()).toEqual(["a", "b", "a"]);
  });

  it("without field ids, the schema elements have none (as before)", async () => {
    const t = table([
      new A.Field("double", new A.Float64(), true),
      new A.Field("string", new A.Utf8(), true),
    ]);
    const elements = await parquetSchema(writeFlatParquet(t, "test"));
    expect(elements.map((e) => e.field_id)).toEqual([null, null, null]);
  });

  it("refuses a field id that is not a non-negative 32-bit integer with INVALID_ARGUMENT naming the column", async () => {
    for (const bad of ["x", "-1", "1.5", "4294967296"]) {
      const t = table([new A.Field("double", new A.Float64(), true, id(bad))]);
      await expectAvaError(
        async () => writeFlatParquet(t, "test"),
        "INVALID_ARGUMENT",
        /column "double": PARQUET:field_id metadata .* is not a field id/,
      );
    }
  });
});
