// recordBatch() stands in for `new A.RecordBatch(schema, data)` on the append path: it must give a batch
// that reads, serializes and joins a Table exactly as the constructor's does, keep the schema object it was
// given, and leave to the constructor a batch whose columns are not all of its length.
import * as A from "apache-arrow";
import { describe, expect, it } from "vitest";
import { recordBatch } from "../../src/util/record-batch.js";

const schema = new A.Schema(
  [
    new A.Field("s", new A.Utf8(), false, new Map([["k", "v"]])),
    new A.Field("n", new A.Int64(), true),
    new A.Field("b", new A.Bool(), true),
  ],
  new Map([["table", "meta"]]),
);

function columns(length: number): A.Data[] {
  return [
    A.vectorFromArray(
      Array.from({ length }, (_, i) => `v${i}`),
      new A.Utf8(),
    ).data[0]!,
    A.vectorFromArray(
      Array.from({ length }, (_, i) => (i % 3 === 0 ? null : BigInt(i) * 10n)),
      new A.Int64(),
    ).data[0]!,
    A.vectorFromArray(
      Array.from({ length }, (_, i) => (i % 4 === 0 ? null : i % 2 === 0)),
      new A.Bool(),
    ).data[0]!,
  ];
}

const struct = (children: A.Data[], length: number) =>
  A.makeData({ type: new A.Struct(schema.fields), length, nullCount: 0, children });

describe("recordBatch", () => {
  it("is the constructor's batch, with the schema object given", () => {
    const data = struct(columns(10), 10);
    const fast = recordBatch(schema, data);
    const made = new A.RecordBatch(schema, data);
    expect(fast).toBeInstanceOf(A.RecordBatch);
    expect(fast.schema).toBe(schema);
    expect(fast.numRows).toBe(10);
    expect(fast.metadata).toEqual(made.metadata);
    expect(fast.toArray().map((r) => r.toJSON())).toEqual(made.toArray().map((r) => r.toJSON()));
    const table = new A.Table(schema, [fast]);
    expect(table.schema).toBe(schema);
    expect(A.tableToIPC(table, "stream")).toEqual(A.tableToIPC(new A.Table(schema, [made]), "stream"));
    expect(A.tableFromIPC(A.tableToIPC(table)).getChild("n")!.toArray()).toEqual(
      A.tableFromIPC(A.tableToIPC(new A.Table([made])))
        .getChild("n")!
        .toArray(),
    );
    // Slicing, selecting and dictionaries go through the batch's own methods as before.
    expect(fast.slice(2, 4).numRows).toBe(2);
    expect(fast.select(["s"]).schema.fields.map((f) => f.name)).toEqual(["s"]);
    expect(fast.dictionaries.size).toBe(0);
  });

  it("leaves a column shorter than the batch to the constructor (which pads it and widens its field)", () => {
    const children = columns(10);
    children[0] = columns(4)[0]!;
    const batch = recordBatch(schema, struct(children, 10));
    expect(batch.schema).not.toBe(schema);
    expect(batch.schema.fields[0]!.nullable).toBe(true);
    expect(batch.getChild("s")!.get(7)).toBeNull();
  });
});
