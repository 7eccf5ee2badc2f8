// The timestamp hot loop (ByteReader.longsInto) against the writer's (ByteWriter.longsFromWords): every
// varint length from 1 to 10 bytes round-trips, and an over-long or over-wide long is refused with the
// offset where it starts — on the fast path (bytes to spare after it) as near the end.
import { describe, expect, it } from "vitest";
import { ByteReader, ByteWriter } from "../../src/avro/binary.js";
import { expectAvaError } from "./fixtures.js";

function encode(values: BigInt64Array): Uint8Array {
  const w = new ByteWriter(10 * values.length);
  w.longsFromWords(new Int32Array(values.buffer), values.length);
  return w.view().slice();
}

function decode(bytes: Uint8Array, n: number): BigInt64Array {
  const out = new BigInt64Array(n);
  const r = new ByteReader(bytes);
  r.longsInto(new Int32Array(out.buffer), 0, n);
  expect(r.remaining).toBe(0);
  return out;
}

describe("Avro longs, batch decoding", () => {
  it("round-trips longs of every varint length, extremes and epoch-ns timestamps included", () => {
    const edges: bigint[] = [
      0n,
      -1n,
      1n,
      63n,
      -64n,
      64n,
      2n ** 31n - 1n,
      -(2n ** 31n),
      2n ** 32n,
      -(2n ** 32n),
    ];
    for (let bits = 6n; bits < 63n; bits += 7n)
      edges.push(2n ** bits - 1n, 2n ** bits, -(2n ** bits), -(2n ** bits) - 1n);
    edges.push(2n ** 63n - 1n, -(2n ** 63n), 1_764_000_000_123_456_789n, -1_764_000_000_123_456_789n);
    const values = BigInt64Array.from(edges);
    expect(decode(encode(values), values.length)).toEqual(values);
    // the same values with nothing to spare after the last one (the slow path near the end)
    const last = BigInt64Array.of(-(2n ** 63n));
    expect(decode(encode(last), 1)).toEqual(last);
  });

  it("refuses a long longer than 10 bytes, or wider than 64 bits, naming where it starts", async () => {
    const padding = new Uint8Array(16); // bytes to spare after it: the fast path reads it
    const tooLong = new Uint8Array([0x02, ...Array(10).fill(0xff), 0x01, ...padding]);
    const tooWide = new Uint8Array([0x02, ...Array(9).fill(0xff), 0x02, ...padding]);
    for (const [bytes, pattern] of [
      [tooLong, /long longer than 10 bytes at byte 1$/],
      [tooWide, /long longer than 64 bits at byte 1$/],
    ] as const) {
      const out = new Int32Array(4);
      await expectAvaError(() => new ByteReader(bytes).longsInto(out, 0, 2), "AVRO_CORRUPT", pattern);
    }
  });
});
