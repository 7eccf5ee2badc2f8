import { describe, expect, it } from "vitest";
import { crc32, crc32c, crc32Portable } from "../../src/avro/crc32.js";
import { SnappyError, snappyCompress, snappyDecompress } from "../../src/avro/snappy.js";

function random(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

/** Avro longs (zigzag varints) of 5,000 epoch-ns timestamps 1 ms apart: 4–7-byte matches every few bytes. */
function timestampVarints(): number[] {
  const bytes: number[] = [];
  for (let i = 0; i < 5_000; i++) {
    let v = (1_700_000_000_000n + BigInt(i)) * 1_000_000n * 2n;
    for (; v >= 0x80n; v >>= 7n) bytes.push(Number(v & 0x7fn) | 0x80);
    bytes.push(Number(v));
  }
  return bytes;
}

describe("snappy", () => {
  const rnd = random(7);
  const cases: [string, Uint8Array][] = [
    ["empty", new Uint8Array(0)],
    ["one byte", Uint8Array.of(42)],
    ["random (incompressible)", Uint8Array.from({ length: 70_000 }, () => Math.floor(rnd() * 256))],
    ["zeros (long overlapping copies)", new Uint8Array(300_000)],
    ["text", new TextEncoder().encode("altitude airspeed altitude airspeed ".repeat(3000))],
    [
      "doubles",
      new Uint8Array(
        Float64Array.from({ length: 20_000 }, (_, i) => Math.round(Math.sin(i / 50) * 100)).buffer,
      ),
    ],
  ];
  it.each(cases)("round-trips %s", (_, data) => {
    const packed = snappyCompress(data);
    expect(snappyDecompress(packed, data.length)).toEqual(data);
    if (data.length > 1000 && _ !== "random (incompressible)")
      expect(packed.length).toBeLessThan(data.length / 2);
  });

  it("passes over matches shorter than 8 bytes (varint timestamps 1 ms apart) and round-trips them", () => {
    // Taking them kept the matcher stepping byte by byte (100× slower); now they stay literals.
    const bytes = timestampVarints();
    const data = Uint8Array.from(bytes);
    const packed = snappyCompress(data);
    expect(snappyDecompress(packed, data.length)).toEqual(data);
    expect(packed.length).toBeGreaterThan(data.length); // only literal headers added: no short copies
    // Long matches are still taken: the same timestamps twice over (45 KB apart) compress by about half.
    const twice = Uint8Array.from([...bytes, ...bytes]);
    expect(snappyCompress(twice).length).toBeLessThan(data.length * 1.1);
  });

  it('"small" takes the short matches "fast" passes over: smaller, and the same bytes back', () => {
    const data = Uint8Array.from(timestampVarints());
    const small = snappyCompress(data, undefined, "small");
    expect(snappyDecompress(small, data.length)).toEqual(data);
    expect(small.length).toBeLessThan(snappyCompress(data, undefined, "fast").length * 0.9);
  });

  it("decodes a hand-made stream with a literal and an overlapping copy", () => {
    // length 7; literal "ab"; copy len 5 offset 2 (type 1: len 4 + 1) -> "abababa"
    const stream = Uint8Array.of(7, (2 - 1) << 2, 0x61, 0x62, (1 << 2) | 1, 2);
    expect(new TextDecoder().decode(snappyDecompress(stream, 100))).toBe("abababa");
  });

  it("decodes a copy with a 4-byte offset (google/snappy's encoder emits them past 64 KiB)", () => {
    // length 72; a 40-byte literal; copy 32 bytes from offset 40 (type 3: tag (32 - 1) << 2 | 3, offset LE)
    const literal = Uint8Array.from({ length: 40 }, (_, i) => 65 + (i % 26));
    const stream = Uint8Array.of(72, (40 - 1) << 2, ...literal, ((32 - 1) << 2) | 3, 40, 0, 0, 0);
    expect(snappyDecompress(stream, 100)).toEqual(Uint8Array.of(...literal, ...literal.subarray(0, 32)));
  });

  it("decompresses into a buffer it is given", () => {
    const data = new TextEncoder().encode("telemetry ".repeat(500));
    const scratch = new Uint8Array(10_000);
    const out = snappyDecompress(snappyCompress(data), data.length, (n) => scratch.subarray(0, n));
    expect(out.buffer).toBe(scratch.buffer);
    expect(out).toEqual(data);
  });

  it.each([
    ["a declared length over the limit", Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0x0f), /over the/],
    ["a copy before the start", Uint8Array.of(4, (1 << 2) | 1, 9), /out of range/],
    ["a literal past the end", Uint8Array.of(3, (5 - 1) << 2, 1, 2), /past the data/],
    ["too few bytes produced", Uint8Array.of(9, 0, 1), /declared 9/],
    ["a truncated copy", Uint8Array.of(4, 2), /truncated/],
  ])("refuses %s", (_, stream, message) => {
    expect(() => snappyDecompress(stream, 1000)).toThrow(SnappyError);
    expect(() => snappyDecompress(stream, 1000)).toThrow(message);
  });

  it.each([
    ["crc32 (the runtime's own where there is one)", crc32],
    ["crc32Portable (JavaScript)", crc32Portable],
  ])("%s computes the standard CRC-32", (_, crc32) => {
    expect(crc32(new TextEncoder().encode("123456789"))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
    expect(crc32(Uint8Array.of(0xff, 0xff, 0xff, 0xff))).toBe(0xffffffff); // unsigned, as both return it
    // the sliced loop against a bit-by-bit reference, over every tail length
    const bitwise = (bytes: Uint8Array) => {
      let c = 0xffffffff;
      for (const b of bytes) {
        c ^= b;
        for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      }
      return (c ^ 0xffffffff) >>> 0;
    };
    const rnd = random(11);
    for (let n = 0; n < 40; n++) {
      const bytes = Uint8Array.from({ length: n * 7 + (n % 4) }, () => Math.floor(rnd() * 256));
      expect(crc32(bytes)).toBe(bitwise(bytes));
    }
    // Views that start off a word boundary, past the 64 bytes where words are read, with every tail length.
    const big = Uint8Array.from({ length: 5_000 }, () => Math.floor(rnd() * 256));
    for (let start = 0; start < 4; start++)
      for (const n of [63, 64, 65, 127, 128, 129, 130, 131, 4_000])
        expect(crc32(big.subarray(start, start + n))).toBe(bitwise(big.subarray(start, start + n)));
  });

  it("computes the standard CRC-32C", () => {
    expect(crc32c(new TextEncoder().encode("123456789"))).toBe(0xe3069283);
    expect(crc32c(new TextEncoder().encode("123456789".repeat(20)).subarray(3))).toBe(
      crc32c(new TextEncoder().encode("456789123".repeat(19) + "456789")),
    );
  });

  it("round-trips data that mixes long incompressible runs with matches (the skip heuristic resets)", () => {
    const rnd = random(3);
    const noise = Uint8Array.from({ length: 20_000 }, () => Math.floor(rnd() * 256));
    const data = new Uint8Array(100_000);
    for (let at = 0; at < data.length; at += 25_000) {
      data.set(noise.subarray(0, 20_000), at);
      data.fill(at & 0xff, at + 20_000, at + 25_000);
    }
    const packed = snappyCompress(data);
    expect(snappyDecompress(packed, data.length)).toEqual(data);
    expect(packed.length).toBeLessThan(data.length / 2); // the repeated noise blocks were found
  });
});
