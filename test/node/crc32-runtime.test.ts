import { expect, it } from "vitest";
import { crc32, crc32Portable } from "../../src/avro/crc32.js";

it("in Node, crc32 is zlib's own (not the JavaScript loop) and agrees with it", () => {
  expect(crc32).not.toBe(crc32Portable);
  const bytes = Uint8Array.from({ length: 100_003 }, (_, i) => (i * 2654435761) >>> 13);
  for (const start of [0, 1, 3])
    expect(crc32(bytes.subarray(start))).toBe(crc32Portable(bytes.subarray(start)));
});

it("both continue a CRC from the bytes before (`prior`), as one CRC over the whole", () => {
  const bytes = Uint8Array.from({ length: 10_007 }, (_, i) => (i * 40503) >>> 7);
  const whole = crc32Portable(bytes);
  for (const cut of [0, 1, 4_096, 10_006])
    for (const crc of [crc32, crc32Portable])
      expect(crc(bytes.subarray(cut), crc(bytes.subarray(0, cut)))).toBe(whole);
});
