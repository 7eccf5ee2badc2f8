// The JS Parquet writer for flat tables (parquet/flat-writer.ts), read back by parquet-wasm (an independent
// reader: arrow-rs) in Node and Chromium: values, nulls, types and field metadata come back exactly; what
// it does not take goes to parquet-wasm; bad compressions are refused.
import * as A from "apache-arrow";
import { describe, expect, it } from "vitest";
import { avroStreamToArrow } from "../../src/avro/to-arrow.js";
import * as ava from "../../src/index.js";
import { isFlatWritable, writeFlatParquet } from "../../src/parquet/flat-writer.js";
import { decodeParquet, encodeParquet } from "../../src/parquet/parquet.js";
import { expectAvaError } from "./fixtures.js";

const utf8Dict = () => new A.Dictionary(new A.Utf8(), new A.Int32());
const meta = new Map([["ava.type", "json"]]);

const schema = new A.Schema([
  new A.Field("channel", utf8Dict(), false),
  new A.Field("maybe_channel", utf8Dict(), true),
  new A.Field("ns", new A.TimestampNanosecond("UTC"), false),
  new A.Field("us", new A.TimestampMicrosecond("UTC"), true),
  new A.Field("ms_local", new A.TimestampMillisecond(), true),
  new A.Field("d", new A.Float64(), true),
  new A.Field("i", new A.Int64(), true),
  new A.Field("s", new A.Utf8(), true, meta),
  new A.Field("none", new A.List(new A.Field("item", new A.Float64(), false)), true),
]);

/** A 64-bit column (integers, timestamps) straight from its values: no builder converts them. */
function int64s(type: A.Int64 | A.Timestamp, values: (bigint | null)[]): A.Vector {
  const nullBitmap = new Uint8Array(Math.ceil(values.length / 8));
  values.forEach((v, i) => {
    if (v !== null) nullBitmap[i >> 3]! |= 1 << (i & 7);
  });
  const data = BigInt64Array.from(values, (v) => v ?? 0n);
  const nullCount = values.filter((v) => v === null).length;
  return A.makeVector(A.makeData({ type, length: values.length, nullCount, nullBitmap, data } as never));
}

/** `n` rows whose nulls fall at odd places (runs of 1, 2 and 3), with extreme and awkward values. */
function batch(n: number, from: number): A.RecordBatch {
  const nullAt = (i: number) => (i + from) % 7 === 3 || (i + from) % 11 < 2;
  const col = <T>(f: (i: number) => T) => Array.from({ length: n }, (_, i) => f(i));
  const vectors = {
    channel: A.vectorFromArray(
      col((i) => `ch${Math.floor((i + from) / 5) % 4}`),
      utf8Dict(),
    ),
    maybe_channel: A.vectorFromArray(
      col((i) => (nullAt(i) ? null : ["é🙂", "", "x"][(i + from) % 3]!)),
      utf8Dict(),
    ),
    ns: int64s(
      new A.TimestampNanosecond("UTC"),
      col((i) => BigInt(i + from) * 1_000_000_001n),
    ),
    us: int64s(
      new A.TimestampMicrosecond("UTC"),
      col((i) => (nullAt(i) ? null : BigInt(i + from) * 1000n)),
    ),
    ms_local: int64s(
      new A.TimestampMillisecond(),
      col((i) => (nullAt(i + 1) ? null : BigInt(i + from))),
    ),
    d: A.vectorFromArray(
      col((i) => (nullAt(i) ? null : [Number.NaN, -0, 5e-324, 1e308, -Infinity, i * 0.1][i % 6]!)),
      new A.Float64(),
    ),
    i: int64s(
      new A.Int64(),
      col((i) => (nullAt(i + 2) ? null : [-(2n ** 63n), 2n ** 63n - 1n, BigInt(i)][i % 3]!)),
    ),
    s: A.vectorFromArray(
      col((i) => (nullAt(i) ? null : i % 2 ? `{"k":${i}}` : "")),
      new A.Utf8(),
    ),
    none: A.vectorFromArray(
      col(() => null),
      schema.fields[8]!.type,
    ),
  };
  const children = schema.fields.map((f) => vectors[f.name as keyof typeof vectors].data[0]!);
  return new A.RecordBatch(
    schema,
    A.makeData({ type: new A.Struct(schema.fields), length: n, nullCount: 0, children }),
  );
}

/** Row values as comparable text (NaN, -0 and BigInt included). */
function rows(t: A.Table): string[] {
  return t
    .toArray()
    .map((r) =>
      JSON.stringify(Object.values(r.toJSON()), (_, v) =>
        typeof v === "bigint" || Object.is(v, -0) || Number.isNaN(v)
          ? String(Object.is(v, -0) ? "-0" : v)
          : v,
      ),
    );
}

describe("flat Parquet writer", () => {
  it("writes every column kind it takes, with nulls, so parquet-wasm reads back the same rows and types", async () => {
    const table = new A.Table(schema, [batch(1000, 0), batch(37, 1000), batch(4099, 1037)]);
    expect(isFlatWritable(table)).toBe(true);
    const bytes = writeFlatParquet(table, "test");
    const back = await decodeParquet(bytes);
    expect(back.schema.fields.map((f) => `${f.name}:${f.type}:${f.nullable}`)).toEqual(
      schema.fields.map((f) => `${f.name}:${f.type}:${f.nullable}`),
    );
    expect(back.schema.fields[7]!.metadata.get("ava.type")).toBe("json");
    expect(back.numRows).toBe(5136);
    expect(rows(back)).toEqual(rows(table));
    // The same rows as parquet-wasm's own zstd file.
    expect(rows(await decodeParquet(await encodeParquet(table, { compression: "zstd" })))).toEqual(
      rows(table),
    );
  });

  it("writes a column of one value as a one-entry dictionary, read back exactly; a varying one with a null stays plain", async () => {
    const n = 10_000;
    const same = (v: bigint) => Array.from({ length: n }, () => v);
    const withNull: (bigint | null)[] = Array.from({ length: n }, (_, i) => BigInt(i * 7919));
    withNull[3] = null; // a column with nulls is written PLAIN
    const table = new A.Table({
      at: int64s(new A.TimestampMicrosecond("UTC"), same(1_733_000_000_000_000n)),
      d: A.makeVector(new Float64Array(n).fill(-0)),
      i: int64s(new A.Int64(), withNull),
    });
    expect(isFlatWritable(table)).toBe(true);
    const bytes = writeFlatParquet(table, "test");
    // `at` and `d` take a few bytes each; `i` (8 bytes a row but one) is most of the file.
    expect(bytes.length).toBeGreaterThan(8 * (n - 1));
    expect(bytes.length).toBeLessThan(8 * n + 4096);
    const back = await decodeParquet(bytes);
    expect(rows(back)).toEqual(rows(table));
    expect(Object.is(back.getChild("d")!.get(n - 1), -0)).toBe(true);
  });

  it("writes integer and timestamp columns as deltas, narrow and wide steps alike, read back exactly at any length", async () => {
    const T0 = 1_757_500_000_000_000_000n;
    for (const n of [2, 3, 33, 128, 129, 160, 1000, 4099]) {
      const walk = (step: (i: number) => bigint) => {
        const out: bigint[] = [T0];
        for (let i = 1; i < n; i++) out.push(out[i - 1]! + step(i));
        return out;
      };
      const table = new A.Table({
        regular: int64s(
          new A.TimestampNanosecond("UTC"),
          walk(() => 1_000_000n),
        ),
        jitter: int64s(
          new A.TimestampNanosecond("UTC"),
          walk((i) => BigInt(((i * 7919 * 7919) % 2_000_001) - 1_000_000)),
        ),
        // the widest steps a signed 32-bit difference holds, both ways, and small ones between
        edges: int64s(
          new A.Int64(),
          walk((i) => [-(2n ** 31n), 2n ** 31n - 1n, 3n, 0n][i % 4]!),
        ),
        negative: int64s(
          new A.Int64(),
          walk((i) => -BigInt(i) * 977n),
        ),
        // series after series, each starting over (as in the long table): steps beyond 32 bits now and then
        restarts: int64s(
          new A.TimestampNanosecond("UTC"),
          walk((i) => (i % 50 === 0 ? -49n * 1_000_000_000n : 1_000_000_000n)),
        ),
        // steps of up to 2^63 - 1 either way (from one end of the int64 range to the middle and back)
        wide: int64s(
          new A.Int64(),
          walk((i) => (i % 2 ? -(2n ** 62n) - 5n : 2n ** 62n + 5n)),
        ),
        // steps of every width from 28 to 52 bits, up and down: packed across the two 32-bit words
        spread: int64s(
          new A.Int64(),
          walk((i) => (i % 3 ? 1n : -1n) * (BigInt(i % 7) << BigInt(28 + (i % 13) * 2))),
        ),
        // scrambled 64-bit values: differences of any width up to 64 bits
        scrambled: int64s(
          new A.Int64(),
          Array.from({ length: n }, (_, i) => BigInt.asIntN(64, BigInt(i + 1) * 0x9e3779b97f4a7c15n)),
        ),
        // from the smallest int64 to the largest and back: steps that wrap around (a step of -1, then 1)
        extremes: int64s(
          new A.Int64(),
          Array.from({ length: n }, (_, i) => (i % 2 ? 2n ** 63n - 1n : -(2n ** 63n))),
        ),
      });
      const bytes = writeFlatParquet(table, "test");
      expect(rows(await decodeParquet(bytes))).toEqual(rows(table));
      if (n === 4099) expect(bytes.length).toBeLessThan(8 * n * 5); // nine columns, in less room than three PLAIN
    }
  });

  it("is what encodeParquet uses for an uncompressed Avro-stream table", async () => {
    const sink = ava.avro.memorySink();
    const w = ava.avro.createWriter(sink);
    w.enqueueBatch("temp", [1n, 2n, 3n], [20.5, 21, 21.5]);
    w.enqueueBatch("mode", [2n], ["idle"]);
    await w.close();
    const table = await avroStreamToArrow(sink.bytes());
    expect(isFlatWritable(table)).toBe(true);
    const bytes = await encodeParquet(table, { compression: "uncompressed" });
    expect(bytes).toEqual(writeFlatParquet(table, "avalanche-web"));
    expect(rows(await decodeParquet(bytes))).toEqual(rows(table));
  });

  it("leaves to parquet-wasm what it does not take: list values, other types, sliced batches", async () => {
    const lists = A.tableFromArrays({ v: new Float64Array([1, 2]) });
    const withList = new A.Table({
      l: A.vectorFromArray([[1.5], null], new A.List(new A.Field("item", new A.Float64(), false))),
    });
    const int32 = A.tableFromArrays({ n: new Int32Array([1, 2, 3]) });
    const sliced = new A.Table(schema, [batch(100, 0)]).slice(3, 50);
    const requiredWithNulls = new A.Table(
      new A.Schema([new A.Field("v", new A.Float64(), false)]),
      A.tableFromArrays({ v: new Float64Array([1]) }).batches.map(
        (b) =>
          new A.RecordBatch(
            new A.Schema([new A.Field("v", new A.Float64(), false)]),
            A.makeData({
              type: new A.Struct([new A.Field("v", new A.Float64(), false)]),
              length: 1,
              nullCount: 0,
              children: [
                A.makeData({
                  type: new A.Float64(),
                  length: 1,
                  nullCount: 1,
                  nullBitmap: new Uint8Array(1),
                  data: b.getChildAt(0)!.data[0]!.values,
                }),
              ],
            }),
          ),
      ),
    );
    expect(isFlatWritable(requiredWithNulls)).toBe(false); // a REQUIRED column has no levels to say "null"
    expect(isFlatWritable(lists)).toBe(true);
    for (const t of [withList, int32, sliced]) {
      expect(isFlatWritable(t)).toBe(false);
      const back = await decodeParquet(await encodeParquet(t, { compression: "uncompressed" }));
      expect(rows(back)).toEqual(rows(t));
    }
  });

  it("refuses a compression it does not know with INVALID_ARGUMENT", async () => {
    const t = A.tableFromArrays({ v: new Float64Array([1]) });
    await expectAvaError(
      encodeParquet(t, { compression: "lzo" as "zstd" }),
      "INVALID_ARGUMENT",
      /compression "lzo"/,
      /lz4_raw/,
    );
  });
});
