// The table the multi-writer tests append to, from child processes (Node) or Workers (browser).
import * as A from "apache-arrow";
import { defineNamespace, table } from "../../src/index.js";

export const Rel = defineNamespace({
  name: "rel",
  tables: {
    batches: table({
      schema: new A.Schema([
        new A.Field("writer", new A.Utf8(), false),
        new A.Field("batch", new A.Int64(), false),
        new A.Field("row", new A.Int64(), false),
        new A.Field("payload", new A.Float64(), false),
      ]),
    }),
  },
});

export function batchRows(writer: string, batch: number, rows: number): A.Table {
  return new A.Table({
    writer: A.vectorFromArray(
      Array.from({ length: rows }, () => writer),
      new A.Utf8(),
    ),
    batch: A.makeVector(new BigInt64Array(rows).fill(BigInt(batch))),
    row: A.makeVector(BigInt64Array.from({ length: rows }, (_, i) => BigInt(i))),
    payload: A.makeVector(Float64Array.from({ length: rows }, () => Math.random())),
  });
}

/** Checks that every committed batch is whole: returns rows per `writer/batch`. */
export function batchesOf(t: A.Table): Map<string, number> {
  const perBatch = new Map<string, number>();
  const writer = t.getChild("writer")!;
  const batch = t.getChild("batch")!;
  for (let i = 0; i < t.numRows; i++) {
    const key = `${writer.get(i)}/${batch.get(i)}`;
    perBatch.set(key, (perBatch.get(key) ?? 0) + 1);
  }
  return perBatch;
}
