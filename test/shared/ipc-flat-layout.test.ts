// flatLayout() stands in for apache-arrow's VectorAssembler on flat columns: it must name the same record
// batch message (or the payload stream misses its cache on every append) and give the same body bytes,
// for every flat type, with and without nulls, sliced or not; and it must leave other columns alone.
import * as A from "apache-arrow";
import { describe, expect, it } from "vitest";
import { flatLayout } from "../../src/util/ipc-flat-layout.js";
import { tableToIpcStream } from "../../src/util/ipc-stream.js";

type Assembled = ReturnType<A.RecordBatchStreamWriter["_assembleRecordBatch"]>;
class Assembler extends A.RecordBatchStreamWriter {
  assemble(batch: A.RecordBatch): Assembled {
    return this._assembleRecordBatch(batch);
  }
}

/** The key ipc-stream.ts keeps apache-arrow's assembly under (its messageKey). */
function arrowKey(numRows: number, a: Assembled): string {
  let key = `${numRows};${a.byteLength};`;
  for (const n of a.nodes) key += `${n.length},${n.nullCount};`;
  for (const r of a.bufferRegions) key += `${r.offset},${r.length};`;
  return `${key}${a.variadicBufferCounts.join(",")}`;
}

const bytes = (v: ArrayBufferView) => [...new Uint8Array(v.buffer, v.byteOffset, v.byteLength)];

const FLAT: [A.DataType, (i: number) => unknown][] = [
  [new A.Utf8(), (i) => ["", "é ✓ 𝄞", "x".repeat(i % 40)][i % 3]],
  [new A.Binary(), (i) => Uint8Array.from({ length: i % 5 }, (_, k) => k + i)],
  [new A.Bool(), (i) => i % 3 === 0],
  [new A.Int8(), (i) => (i % 200) - 100],
  [new A.Int32(), (i) => i * 7919],
  [new A.Int64(), (i) => BigInt(i) * -(2n ** 40n)],
  [new A.Uint16(), (i) => i],
  [new A.Float32(), (i) => i / 8],
  [new A.Float64(), (i) => Math.sin(i)],
  [new A.TimestampMicrosecond("UTC"), (i) => 1_700_000_000_000 + i],
  [new A.DateDay(), (i) => new Date(86_400_000 * i)],
];

/** `n` rows of every flat type; `nulls`: one in `nulls` rows null (0: none; 1: all). */
function flatTable(n: number, nulls: number): A.Table {
  const columns: Record<string, A.Vector> = {};
  FLAT.forEach(([type, make], c) => {
    const values = Array.from({ length: n }, (_, i) => (nulls > 0 && (i + c) % nulls === 0 ? null : make(i)));
    columns[`c${c}`] = A.vectorFromArray(values, type);
  });
  return new A.Table(columns);
}

describe("flatLayout", () => {
  it("is apache-arrow's assembly of flat columns: same message key, same body buffers", () => {
    const assembler = new Assembler();
    const tables = [
      flatTable(10, 0),
      flatTable(10, 3),
      flatTable(10, 1),
      flatTable(1, 0),
      flatTable(37, 4),
      flatTable(100, 3).slice(13, 40), // columns at an offset: bitmaps re-packed, offsets rebased
      flatTable(100, 0).slice(8, 9),
    ];
    for (const table of tables) {
      for (const batch of table.batches) {
        const ours = flatLayout(batch)!;
        const arrow = assembler.assemble(batch);
        expect(ours.key).toBe(arrowKey(batch.numRows, arrow));
        expect(ours.buffers.map(bytes)).toEqual(arrow.buffers.map(bytes));
      }
      // And the stream written with it, the second time from the cached messages, is tableToIPC's.
      expect(tableToIpcStream(table)).toEqual(A.tableToIPC(table, "stream"));
      expect(tableToIpcStream(table)).toEqual(A.tableToIPC(table, "stream"));
    }
  });

  it("leaves nested, dictionary and large-offset columns to apache-arrow", () => {
    const others = [
      A.vectorFromArray([[1], [2, 3]], new A.List(new A.Field("item", new A.Int32(), true))),
      A.vectorFromArray(["a", "b"], new A.Dictionary(new A.Utf8(), new A.Int32())),
      A.vectorFromArray(["a", "b"], new A.LargeUtf8()),
      A.vectorFromArray([{ x: 1 }, { x: 2 }], new A.Struct([new A.Field("x", new A.Int32(), true)])),
    ];
    for (const v of others) {
      const table = new A.Table({ n: A.vectorFromArray([1, 2], new A.Int32()), v });
      expect(flatLayout(table.batches[0]!)).toBeUndefined();
      expect(tableToIpcStream(table)).toEqual(A.tableToIPC(table, "stream"));
    }
  });
});
