// columnStats' bounds on the raw buffers, for the fast loops of columns without nulls (Float64, signed
// Int64 and timestamps) beside the general ones: views with an offset, NaN and infinities, the int64 ends.
import * as A from "apache-arrow";
import { describe, expect, it } from "vitest";
import { columnStats } from "../../src/table/stats.js";

function int64Data(type: A.Int64 | A.TimestampNanosecond, values: bigint[], offset = 0): A.Data {
  const all = BigInt64Array.from([...Array.from({ length: offset }, () => 0n), ...values]);
  return A.makeData({
    type: type as A.Int64,
    length: values.length,
    nullCount: 0,
    data: all.subarray(offset),
  });
}

/** Each column's stats, from a table of that column alone (columns of a table have one length). */
function statsOf(columns: Record<string, A.Data>) {
  return Object.fromEntries(
    Object.entries(columns).map(([k, d]) => [k, columnStats(new A.Table({ [k]: A.makeVector(d) }))[k]!]),
  );
}

describe("columnStats bounds", () => {
  it("Float64 without nulls: NaN moves no bound, infinities are bounds, all NaN has none", () => {
    const f = (values: number[]) =>
      A.makeData({
        type: new A.Float64(),
        length: values.length,
        nullCount: 0,
        data: Float64Array.from(values),
      });
    const s = statsOf({
      plain: f([3, -2.5, Number.NaN, 7, 0]),
      infinite: f([Number.NaN, Number.NEGATIVE_INFINITY, 1, Number.POSITIVE_INFINITY]),
      nan: f([Number.NaN, Number.NaN]),
    });
    expect(s.plain).toEqual({ nullCount: 0, min: -2.5, max: 7 });
    expect(s.infinite).toEqual({ nullCount: 0, min: { float: "-Infinity" }, max: { float: "Infinity" } });
    expect(s.nan).toEqual({ nullCount: 0 });
  });

  it("signed Int64 and timestamps without nulls: exact at the int64 ends, across the 32-bit word boundary, from an offset", () => {
    const ends = [0n, -(2n ** 63n), 2n ** 63n - 1n, -1n, 2n ** 32n, 2n ** 32n - 1n, -(2n ** 32n)];
    const words = [2n ** 32n + 5n, 2n ** 32n - 1n, -(2n ** 31n) - 1n, 2n ** 31n, 4n];
    const t0 = 1_757_500_000_000_000_000n;
    const times = Array.from({ length: 1000 }, (_, i) => t0 + BigInt((i * 7919) % 1000) * 1_000_000n);
    const s = statsOf({
      ends: int64Data(new A.Int64(), ends),
      words: int64Data(new A.Int64(), words, 3),
      times: int64Data(new A.TimestampNanosecond("UTC"), times, 5),
    });
    expect(s.ends).toMatchObject({
      min: { bigint: String(-(2n ** 63n)) },
      max: { bigint: String(2n ** 63n - 1n) },
    });
    expect(s.words).toMatchObject({
      min: { bigint: String(-(2n ** 31n) - 1n) },
      max: { bigint: String(2n ** 32n + 5n) },
    });
    expect(s.times).toMatchObject({
      min: { bigint: String(t0) },
      max: { bigint: String(t0 + 999_000_000n) },
    });
  });

  it("with nulls the general loops still skip the null rows", () => {
    const f = A.makeData({
      type: new A.Float64(),
      length: 3,
      nullCount: 1,
      nullBitmap: Uint8Array.of(0b101),
      data: Float64Array.of(1, -100, 2),
    });
    const i = A.makeData({
      type: new A.Int64(),
      length: 3,
      nullCount: 1,
      nullBitmap: Uint8Array.of(0b011),
      data: BigInt64Array.of(5n, 6n, -(2n ** 63n)),
    });
    const s = statsOf({ f, i });
    expect(s.f).toEqual({ nullCount: 1, min: 1, max: 2 });
    expect(s.i).toMatchObject({ nullCount: 1, min: { bigint: "5" }, max: { bigint: "6" } });
  });
});
