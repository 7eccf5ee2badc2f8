// 10,000 random mutations of valid Avro stream files (bytes flipped, cut, inserted, duplicated), every codec
// read: each one either decodes or fails with an AvaError — no other exception, no hang.
import { expect, it } from "vitest";
import { encodeAvroStream, readAvroStream } from "../../src/avro.js";
import { isAvaError } from "../../src/errors.js";
import { RECORDS } from "./avro-records.js";
import { zstdFileOf } from "./zstd-frames.js";

it("10,000 mutated files: each decodes or is an AvaError", async () => {
  let seed = 1234;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return Math.floor((seed / 2 ** 31) * n);
  };
  const originals = [
    ...(await Promise.all(
      (["null", "deflate", "snappy"] as const).map((codec) =>
        encodeAvroStream(RECORDS, { codec, recordsPerBlock: 3 }),
      ),
    )),
    zstdFileOf(RECORDS), // zstandard, which is read, not written
  ];
  const outcomes = { decoded: 0, refused: 0 };
  const started = Date.now();
  for (let i = 0; i < 10_000; i++) {
    const original = originals[i % originals.length]!;
    let bytes = original.slice();
    const edits = 1 + random(4);
    for (let e = 0; e < edits; e++) {
      const at = random(bytes.length);
      switch (random(4)) {
        case 0:
          bytes[at] = random(256);
          break;
        case 1:
          bytes = bytes.slice(0, at);
          break;
        case 2:
          bytes = Uint8Array.from([...bytes.subarray(0, at), random(256), ...bytes.subarray(at)]);
          break;
        default:
          bytes[at]! ^= 1 << random(8);
      }
      if (bytes.length === 0) break;
    }
    try {
      await readAvroStream(bytes, { maxBlockBytes: 1 << 20 });
      outcomes.decoded++;
    } catch (err) {
      if (!isAvaError(err)) throw new Error(`mutation ${i} threw a non-AvaError: ${String(err)}`);
      outcomes.refused++;
    }
  }
  expect(outcomes.decoded + outcomes.refused).toBe(10_000);
  expect(outcomes.refused).toBeGreaterThan(5_000); // most mutations damage the file
  expect(Date.now() - started).toBeLessThan(60_000);
}, 120_000);
