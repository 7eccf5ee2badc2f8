// Reading a stream fed in chunks costs what reading it from one buffer costs, give or take a constant: a
// reader that rebuilt its pending bytes for every chunk took 6.7 s for a 43 MB one-block file (85 ms from one
// buffer). And a header that claims more than any header holds is refused at once, not waited for.
import { describe, expect, it } from "vitest";
import { type AvroStreamRecord, encodeAvroStream, openAvroStream, readAvroStream } from "../../src/avro.js";
import { expectAvaError } from "./fixtures.js";

const CHUNK = 64 * 1024;

function inChunks(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + CHUNK)); // fresh buffers, as a file or socket gives them
      at += CHUNK;
    },
  });
}

async function timedPoints(source: Uint8Array | ReadableStream<Uint8Array>) {
  const t0 = performance.now();
  let points = 0;
  for await (const r of (await openAvroStream(source)).records({ reuse: true }))
    points += r.timestamps.length;
  return { ms: performance.now() - t0, points };
}

describe("chunked reading", () => {
  it("reads a 43 MB one-block file in 64 KiB chunks in time linear in its size", async () => {
    const n = 2_400_000; // 18 bytes a point: one 43 MB block
    const timestamps = new BigInt64Array(n);
    const words = new Int32Array(timestamps.buffer); // epoch-ns-sized values, without a BigInt per point
    for (let i = 0; i < n; i++) {
      words[2 * i] = i;
      words[2 * i + 1] = 409_000_000;
    }
    const record: AvroStreamRecord = {
      channel: "one",
      timestamps,
      values: { kind: "double", values: Float64Array.from({ length: n }, (_, i) => i) },
      tags: {},
    };
    const bytes = await encodeAvroStream([record], { codec: "null" });
    expect(bytes.length).toBeGreaterThan(43e6);
    await timedPoints(bytes); // warm
    // The fastest of three reads each way: a loaded machine stalls single runs, never all three.
    const fastest = async (read: () => Promise<{ ms: number; points: number }>) => {
      const runs = [await read(), await read(), await read()];
      for (const r of runs) expect(r.points).toBe(n);
      return Math.min(...runs.map((r) => r.ms));
    };
    const whole = await fastest(() => timedPoints(bytes));
    const chunked = await fastest(() => timedPoints(inChunks(bytes)));
    // Linear: a few copies of each byte at most. Quadratic copying is ~80× the whole-buffer time here.
    expect(chunked).toBeLessThan(5 * whole + 2000);
  }, 120_000);

  it("reads many blocks across chunk boundaries exactly", async () => {
    const records = Array.from({ length: 100 }, (_, r) => ({
      channel: `c${r % 7}`,
      timestamps: BigInt64Array.from({ length: 500 + r }, (_, i) => BigInt(r * 10_000 + i)),
      values: {
        kind: "double" as const,
        values: Float64Array.from({ length: 500 + r }, (_, i) => r + i / 4),
      },
      tags: { r: String(r % 3) },
    }));
    for (const codec of ["null", "snappy", "deflate"] as const) {
      const bytes = await encodeAvroStream(records, { codec, recordsPerBlock: 3 });
      expect(await readAvroStream(inChunks(bytes))).toEqual(records);
    }
  });

  it("refuses a header claiming a 1 GiB metadata value at once, without waiting for the bytes", async () => {
    // "Obj\x01", one metadata entry, key "avro.schema", then a value length of 2^30 (zigzag varint).
    const head = new Uint8Array([
      0x4f,
      0x62,
      0x6a,
      0x01,
      0x02,
      0x16,
      ...new TextEncoder().encode("avro.schema"),
    ]);
    const claim = new Uint8Array([0x80, 0x80, 0x80, 0x80, 0x08]); // zigzag(2^30)
    let pulls = 0;
    const junk = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array([...head, ...claim]));
      },
      pull(controller) {
        pulls++;
        controller.enqueue(new Uint8Array(CHUNK).fill(0x41)); // junk for ever
      },
    });
    const t0 = performance.now();
    await expectAvaError(openAvroStream(junk), "AVRO_CORRUPT", /1073741824-byte metadata value/, /limit/);
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(pulls).toBeLessThan(4); // refused on the claim, not after reading a gigabyte
  });

  it("refuses a header that never ends past the header limit, and a claim of a billion entries", async () => {
    const manyKeys = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array([0x4f, 0x62, 0x6a, 0x01, 0x80, 0xa8, 0xd6, 0xb9, 0x07])); // 10^9 entries
      },
    });
    await expectAvaError(openAvroStream(manyKeys), "AVRO_CORRUPT", /1000000000 metadata entries/);
    // Entries of one byte each, for ever: refused once the (lowered) limit is passed.
    let pulls = 0;
    const endless = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array([0x4f, 0x62, 0x6a, 0x01, 0x7e])); // 63 entries, then more blocks
      },
      pull(controller) {
        pulls++;
        // 63 empty keys with empty values, then another block of 63: the header never ends.
        controller.enqueue(new Uint8Array([...Array(126).fill(0), 0x7e]));
      },
    });
    await expectAvaError(
      openAvroStream(endless, { maxHeaderBytes: 1 << 14 }),
      "AVRO_CORRUPT",
      /over the 16384-byte limit/,
    );
    expect(pulls).toBeLessThan(1000);
  });
});
