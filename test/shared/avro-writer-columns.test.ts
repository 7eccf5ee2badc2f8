// The columnar writer at scale: batches of any size, cut into blocks of at most maxBatchPoints points; a
// refused batch, however large, leaves nothing behind; sinks are checked when the writer is made.
import { describe, expect, it } from "vitest";
import { createWriter, memorySink, openAvroStream, readAvroStream } from "../../src/avro.js";
import { expectAvaError } from "./fixtures.js";

/** Epoch-ns timestamps `HIGH * 2^32 + i`, built through their 32-bit words: no BigInt per point. */
const HIGH = 409_000_000;

/** Points per record, the sum of the values, and whether timestamp i is point i: no BigInt per point. */
async function summary(bytes: Uint8Array) {
  const perRecord: number[] = [];
  const channels = new Set<string>();
  let sum = 0;
  let next = 0;
  for await (const r of (await openAvroStream(bytes)).records({ reuse: true })) {
    perRecord.push(r.timestamps.length);
    channels.add(r.channel);
    const values = r.values.values as Float64Array;
    const words = new Int32Array(r.timestamps.buffer, r.timestamps.byteOffset, 2 * r.timestamps.length);
    for (let i = 0; i < values.length; i++, next++) {
      sum += values[i]!;
      if (words[2 * i] !== next || words[2 * i + 1] !== HIGH)
        throw new Error(`point ${next} is out of place`);
    }
  }
  return { perRecord, channels: [...channels], sum, points: next };
}

describe("createWriter, columnar", () => {
  it("takes 10M points in one enqueueBatch call, written in blocks of maxBatchPoints", async () => {
    const n = 10_000_000;
    const timestamps = new BigInt64Array(n);
    const words = new Int32Array(timestamps.buffer);
    const values = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      words[2 * i] = i;
      words[2 * i + 1] = HIGH;
      values[i] = i % 1000;
    }
    const sink = memorySink();
    const w = createWriter(sink, { codec: "null" }); // the default maxBatchPoints: 250,000
    w.enqueueBatch("big", timestamps, values, { run: "1" });
    await w.close();
    const s = await summary(sink.bytes());
    expect(s.perRecord).toEqual(Array(40).fill(250_000));
    expect(s.channels).toEqual(["big"]);
    expect(s.sum).toBe((n / 1000) * ((999 * 1000) / 2));
    expect(s.points).toBe(n);
  }, 120_000);

  it("takes plain arrays of 300,000 points (past the old spread limit) and cuts blocks across series", async () => {
    const n = 300_000;
    const sink = memorySink();
    const w = createWriter(sink, { codec: "snappy", maxBatchPoints: 100_000 });
    w.enqueue("first", 0n, 0.5);
    w.enqueueBatch(
      "plain",
      Array.from({ length: n }, (_, i) => BigInt(i + 1)),
      Array.from({ length: n }, (_, i) => i),
    );
    await w.close();
    const records = await readAvroStream(sink.bytes());
    // 300,001 points pending at the flush: blocks of 100,000 points, "first" sharing the first block.
    expect(records.map((r) => [r.channel, r.timestamps.length])).toEqual([
      ["first", 1],
      ["plain", 99_999],
      ["plain", 100_000],
      ["plain", 100_000],
      ["plain", 1],
    ]);
    const values = records.filter((r) => r.channel === "plain").flatMap((r) => [...r.values.values]);
    const times = records.filter((r) => r.channel === "plain").flatMap((r) => [...r.timestamps]);
    expect(values.every((v, i) => v === i) && values.length === n).toBe(true);
    expect(times.every((t, i) => t === BigInt(i + 1)) && times.length === n).toBe(true);
  });

  it("refuses a large batch with one bad point at its end, leaving no series and no points behind", async () => {
    const n = 300_000;
    const sink = memorySink();
    const w = createWriter(sink, { codec: "null" });
    w.enqueueBatch("kept", [1n, 2n], [1, 2]);
    const ts = Array.from({ length: n }, (_, i) => BigInt(i));
    const bad: [() => void, RegExp][] = [
      [() => w.enqueueBatch("mixed", ts, [...Array(n - 1).fill(1), "x"]), /point 299999 is a string/],
      [() => w.enqueueBatch("nulls", ts, [...Array(n - 1).fill(1), null]), /point 299999: null/],
      [() => w.enqueueBatch("late", [...ts.slice(1), 2n ** 64n], Array(n).fill(1)), /outside 64 bits/],
      [() => w.enqueueBatch("longs", ts, [...Array(n - 1).fill(1n), -(2n ** 63n) - 1n]), /outside 64 bits/],
      [
        () => w.enqueueBatch("strs", ts, [...Array(n - 1).fill("a"), ["b"]]),
        /string array in a batch of string/,
      ],
      [() => w.enqueueBatch("json", ts, [...Array(n - 1).fill({ a: 1 }), { a: Number.NaN }]), /NaN/],
      // into a pending series: nothing of the call joins the two points already there
      [() => w.enqueueBatch("kept", ts, [...Array(n - 1).fill(3), true]), /booleans/],
    ];
    for (const [call, message] of bad) await expectAvaError(call, "INVALID_ARGUMENT", message, /nothing/);
    w.enqueueBatch("kept", [3n], [3]);
    await w.close();
    const records = await readAvroStream(sink.bytes());
    expect(records).toHaveLength(1);
    expect(records[0]!.channel).toBe("kept");
    expect(records[0]!.values.values).toEqual(Float64Array.of(1, 2, 3));
  });

  it("lets a series change type once its pending points are written", async () => {
    const sink = memorySink();
    const w = createWriter(sink, { codec: "null" });
    w.enqueue("s", 1n, 1.5);
    await expectAvaError(() => w.enqueue("s", 2n, "x"), "INVALID_ARGUMENT", /pending/);
    await w.flush();
    w.enqueue("s", 2n, "x");
    w.enqueueBatch("s", BigInt64Array.of(3n, 4n), ["y", "z"]);
    await w.close();
    const records = await readAvroStream(sink.bytes());
    expect(records.map((r) => r.values)).toEqual([
      { kind: "double", values: Float64Array.of(1.5) },
      { kind: "string", values: ["x", "y", "z"] },
    ]);
  });

  it("keeps the tags a series was made with, whatever the caller later does to its object", async () => {
    const sink = memorySink();
    const w = createWriter(sink, { codec: "null" });
    const tags: Record<string, string> = { vehicle: "a" };
    w.enqueue("c", 1n, 1, tags);
    tags.vehicle = "b";
    w.enqueue("c", 2n, 2, tags);
    w.enqueue("c", 3n, 3, { vehicle: "a" });
    await w.close();
    const records = await readAvroStream(sink.bytes());
    expect(records.map((r) => [r.tags.vehicle, Array.from(r.values.values as Float64Array)])).toEqual([
      ["a", [1, 3]],
      ["b", [2]],
    ]);
  });

  it("writes straight to a WritableStream, block by block, and refuses what is not a sink at once", async () => {
    const chunks: Uint8Array[] = [];
    const stream = new WritableStream<Uint8Array>({ write: (c) => void chunks.push(c) }); // keeps every chunk
    const w = createWriter(stream, { codec: "null", maxBatchPoints: 100 });
    for (let i = 0; i < 1000; i++) w.enqueue("s", BigInt(i), i);
    await w.close();
    expect(chunks.length).toBe(10); // ten blocks, each in a buffer of its own, the header ahead of the first
    const records = await readAvroStream(new Blob(chunks as Uint8Array<ArrayBuffer>[]));
    expect(records.flatMap((r) => Array.from(r.values.values as Float64Array))).toEqual(
      Array.from({ length: 1000 }, (_, i) => i),
    );
    for (const notASink of [
      undefined,
      null,
      "file.avro",
      {},
      { write: "yes" },
      { write: () => {}, close: 1 },
    ])
      await expectAvaError(() => createWriter(notASink as never), "INVALID_ARGUMENT", /sink|close/);
    for (const options of [{ maxBatchPoints: 0 }, { maxBatchPoints: 1.5 }, { maxDelayMs: -1 }])
      await expectAvaError(() => createWriter(memorySink(), options), "INVALID_ARGUMENT", /createWriter/);
  });
});
