// batchOf / tableOf make what apache-arrow's constructors make, without their copies and comparisons: the
// same rows, the same IPC bytes, the schema object kept; and coercion's sameType, which caches each type's
// shape, still tells types apart.
import * as A from "apache-arrow";
import { describe, expect, it } from "vitest";
import { sameType } from "../../src/schema/cast.js";
import { batchOf, tableOf } from "../../src/util/arrow-batch.js";

const schema = new A.Schema([
  new A.Field("s", new A.Utf8(), true),
  new A.Field("i", new A.Int64(), false),
  new A.Field("f", new A.Float64(), true),
  new A.Field("l", new A.List(new A.Field("item", new A.Int32(), true)), true),
]);

function columns(n: number): A.Data[] {
  return [
    A.vectorFromArray(
      Array.from({ length: n }, (_, i) => (i % 3 === 0 ? null : `s${i}`)),
      new A.Utf8(),
    ),
    A.vectorFromArray(
      Array.from({ length: n }, (_, i) => BigInt(i) - 5n),
      new A.Int64(),
    ),
    A.vectorFromArray(
      Array.from({ length: n }, (_, i) => (i % 4 === 0 ? null : i / 3)),
      new A.Float64(),
    ),
    A.vectorFromArray(
      Array.from({ length: n }, (_, i) => (i % 5 === 0 ? null : [i, i + 1])),
      new A.List(new A.Field("item", new A.Int32(), true)),
    ),
  ].map((v) => v.data[0]!);
}

/** Rows as plain values (lists as arrays), to compare tables made different ways. */
function plain(table: A.Table): unknown[] {
  return table.toArray().map((row) =>
    schema.fields.map((f) => {
      const v = (row as Record<string, unknown>)[f.name];
      return v instanceof A.Vector ? [...v] : v;
    }),
  );
}

describe("batchOf / tableOf", () => {
  it("make the rows and IPC bytes apache-arrow's constructors make, under the schema given", () => {
    const a = columns(7);
    const b = columns(3);
    const ours = tableOf(schema, [batchOf(schema, a, 7), batchOf(schema, b, 3)]);
    const struct = new A.Struct(schema.fields);
    const theirs = new A.Table(
      schema,
      [a, b].map(
        (children, i) =>
          new A.RecordBatch(
            schema,
            A.makeData({ type: struct, length: i === 0 ? 7 : 3, nullCount: 0, children }),
          ),
      ),
    );
    expect(ours.schema).toBe(schema);
    expect(ours.batches.every((batch) => batch.schema === schema)).toBe(true);
    expect(ours).toBeInstanceOf(A.Table);
    expect(ours.batches[0]).toBeInstanceOf(A.RecordBatch);
    expect(ours.numRows).toBe(10);
    expect(ours.nullCount).toBe(theirs.nullCount);
    expect(plain(ours)).toEqual(plain(theirs));
    expect(plain(ours)[8]).toEqual(["s1", -4n, 1 / 3, [1, 2]]); // row 1 of the second batch
    expect(plain(ours.slice(2, 9))).toEqual(plain(theirs.slice(2, 9)));
    expect(A.tableToIPC(ours, "stream")).toEqual(A.tableToIPC(theirs, "stream"));
    expect(plain(A.tableFromIPC(A.tableToIPC(ours, "file")))).toEqual(plain(theirs));
  });

  it("refuse columns that do not fit the schema (apache-arrow would pad them with nulls)", () => {
    expect(() => batchOf(schema, columns(4), 5)).toThrow(/batchOf/);
    expect(() => batchOf(schema, columns(4).slice(1), 4)).toThrow(/batchOf/);
  });

  it("tableOf hands batches under another schema object to apache-arrow, which checks them", () => {
    const other = new A.Schema([new A.Field("x", new A.Int32(), false)]);
    const x = A.vectorFromArray([1, 2], new A.Int32()).data[0]!;
    expect(() => tableOf(schema, [batchOf(other, [x], 2)])).toThrow(TypeError);
    const copy = new A.Schema([...schema.fields]);
    expect(tableOf(schema, [batchOf(copy, columns(2), 2)]).numRows).toBe(2);
  });
});

describe("sameType (cached per type object)", () => {
  it("matches equal types made apart, and tells different ones apart, on every call", () => {
    for (let round = 0; round < 2; round++) {
      expect(sameType(new A.Int64(), new A.Int64())).toBe(true);
      expect(sameType(new A.Int64(), new A.Int32())).toBe(false);
      expect(sameType(new A.Uint64(), new A.Int64())).toBe(false);
      expect(sameType(new A.TimestampMicrosecond("UTC"), new A.TimestampMicrosecond("UTC"))).toBe(true);
      expect(sameType(new A.TimestampMicrosecond("UTC"), new A.TimestampMillisecond("UTC"))).toBe(false);
      expect(sameType(new A.TimestampMicrosecond("UTC"), new A.TimestampMicrosecond())).toBe(false);
      // Nested: child nullability is not compared, child types are.
      const list = (t: A.DataType, nullable: boolean) => new A.List(new A.Field("item", t, nullable));
      expect(sameType(list(new A.Int32(), true), list(new A.Int32(), false))).toBe(true);
      expect(sameType(list(new A.Int32(), true), list(new A.Int64(), true))).toBe(false);
      const t = new A.Float64();
      expect(sameType(t, t)).toBe(true);
    }
  });
});
