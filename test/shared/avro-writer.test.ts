// The enqueue writer: what it writes reads back exactly; what it refuses leaves nothing behind.
import { describe, expect, it } from "vitest";
import {
  type AvroStreamRecord,
  createWriter,
  memorySink,
  openAvroStream,
  readAvroStream,
  streamSink,
} from "../../src/avro.js";
import { expectAvaError } from "./fixtures.js";
import { waitFor } from "./subscribe-contract.js";

const bySeries = (records: AvroStreamRecord[]) =>
  Object.fromEntries(records.map((r) => [`${r.channel}${JSON.stringify(r.tags)}`, r]));

describe("createWriter", () => {
  it("writes the seed document's example and reads it back exactly", async () => {
    const sink = memorySink();
    const w = createWriter(sink, { codec: "snappy" });
    const now = new Date("2025-09-10T10:00:00.000Z");
    w.enqueue("altitude", now, 1250.5, { vehicle_id: "sn-001" });
    w.enqueueBatch("airspeed", [1_757_500_000_000_000_000n, 1_757_500_100_000_000_000n], [42.0, Number.NaN]);
    w.enqueueFromDict(1_757_500_200_000_000_000n, { altitude: 1252.0, fault_code: "E07" });
    w.enqueue("counts", 1n, 2n ** 63n - 1n);
    w.enqueue("vector", 2n, [1, 2, 3]);
    w.enqueue("labels", 3n, ["a", "b"]);
    w.enqueue("event", 4n, { ok: true, n: null, list: [1, "x"] });
    w.enqueue("inf", 5n, Number.NEGATIVE_INFINITY);
    await w.close();
    const file = await openAvroStream(sink.bytes());
    expect(file.codec).toBe("snappy");
    const records = [];
    for await (const r of file.records()) records.push(r);
    const s = bySeries(records);
    expect(s['altitude{"vehicle_id":"sn-001"}']).toEqual({
      channel: "altitude",
      timestamps: BigInt64Array.of(BigInt(now.getTime()) * 1_000_000n),
      values: { kind: "double", values: Float64Array.of(1250.5) },
      tags: { vehicle_id: "sn-001" },
    });
    expect(s["altitude{}"]!.values).toEqual({ kind: "double", values: Float64Array.of(1252) });
    expect(s["airspeed{}"]!.values.values).toEqual(Float64Array.of(42, Number.NaN));
    expect(s["fault_code{}"]!.values).toEqual({ kind: "string", values: ["E07"] });
    expect(s["counts{}"]!.values).toEqual({ kind: "long", values: BigInt64Array.of(2n ** 63n - 1n) });
    expect(s["vector{}"]!.values).toEqual({ kind: "doubleArray", values: [Float64Array.of(1, 2, 3)] });
    expect(s["labels{}"]!.values).toEqual({ kind: "stringArray", values: [["a", "b"]] });
    expect(s["event{}"]!.values).toEqual({ kind: "json", values: ['{"ok":true,"n":null,"list":[1,"x"]}'] });
    expect(s["inf{}"]!.values.values).toEqual(Float64Array.of(Number.NEGATIVE_INFINITY));
  });

  it("refuses bad calls before enqueuing anything of them", async () => {
    const sink = memorySink();
    const w = createWriter(sink, { codec: "null" });
    w.enqueue("ok", 1n, 1.5);
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = { back: cyclic };
    const nested = (n: number) => {
      let v: unknown = 1;
      for (let i = 0; i < n; i++) v = { v };
      return v;
    };
    const refused: [() => void, RegExp][] = [
      [() => w.enqueueBatch("m", [1n, 2n], [1.5, "x"]), /point 1 is a string in a batch of double/],
      [() => w.enqueue("n", 1n, null as never), /null is not a value/],
      [() => w.enqueue("b", 1n, true as never), /booleans/],
      [() => w.enqueueBatch("e", [], []), /empty batch/],
      [() => w.enqueueBatch("u", [1n, 2n], [1]), /2 timestamps but 1 values/],
      [() => w.enqueue("j", 1n, { bad: Number.NaN }), /JSON struct cannot be stored: it holds NaN/],
      [() => w.enqueue("j", 1n, cyclic), /JSON struct cannot be stored: it contains a cycle/],
      [() => w.enqueue("j", 1n, { deep: nested(100_000) }), /deeper than 1000 levels/],
      [() => w.enqueue("j", 1n, { n: 1n }), /bigint/],
      [() => w.enqueue("t", 1_757_500_000_000, 1), /plain number cannot hold epoch nanoseconds/],
      [() => w.enqueue("ok", 2n, "now a string"), /string values while double values of the same channel/],
      [() => w.enqueueFromDict(3n, { good: 1, bad: null as never }), /"bad"/],
      // "ok" has double values pending: the whole dict is refused, "fresh" included.
      [() => w.enqueueFromDict(3n, { fresh: 1, ok: "text" }), /string values while double values/],
      [() => w.enqueue("", 1n, 1), /non-empty string/],
      [() => w.enqueue("big", 2n ** 63n, 1), /outside 64 bits/],
    ];
    for (const [call, message] of refused) await expectAvaError(call, "INVALID_ARGUMENT", message, /nothing/);
    await w.close();
    const records = await readAvroStream(sink.bytes());
    expect(records.map((r) => r.channel)).toEqual(["ok"]); // not even "good" or "fresh" from the refused dicts
    expect(records[0]!.values.values).toEqual(Float64Array.of(1.5));
  });

  it("takes plain-number timestamps when their unit is declared, exactly", async () => {
    const sink = memorySink();
    const w = createWriter(sink, { timestampUnit: "ms" });
    w.enqueueBatch("x", [1_757_500_000_123, 1_757_500_000_123.5], [1, 2]); // .5 is exact in a double
    await w.close();
    const [r] = await readAvroStream(sink.bytes());
    expect(r!.timestamps).toEqual(BigInt64Array.of(1_757_500_000_123_000_000n, 1_757_500_000_123_500_000n));
  });

  it("flushes by size (one block per flush) and by time", async () => {
    const sink = memorySink();
    const w = createWriter(sink, { codec: "null", maxBatchPoints: 10, maxDelayMs: 20 });
    for (let i = 0; i < 25; i++) w.enqueue("s", BigInt(i), i);
    await w.flush();
    const records = await readAvroStream(sink.bytes());
    expect(records.map((r) => r.values.values.length)).toEqual([10, 10, 5]);

    const timed = memorySink();
    const t = createWriter(timed, { codec: "null", maxDelayMs: 20 });
    t.enqueue("late", 1n, 1);
    const channels = async () => (await readAvroStream(timed.bytes())).map((r) => r.channel);
    await waitFor(async () => (await channels().catch(() => [])).length > 0, "a block flushed by time");
    expect(await channels()).toEqual(["late"]); // without flush()
    await t.close();
  });

  it("writes a valid header-only file when closed with no points", async () => {
    const sink = memorySink();
    await createWriter(sink).close();
    expect(sink.bytes().length).toBeGreaterThan(16);
    expect(await readAvroStream(sink.bytes())).toEqual([]);
  });

  it("writes to any WritableStream, and latches a failing sink's error", async () => {
    const chunks: Uint8Array[] = [];
    const w = createWriter(streamSink(new WritableStream({ write: (c) => void chunks.push(c) })), {
      codec: "deflate",
    });
    w.enqueue("a", 1n, 1);
    await w.close();
    expect(await readAvroStream(new Blob(chunks as Uint8Array<ArrayBuffer>[]))).toHaveLength(1);

    const failing = createWriter(
      { write: () => Promise.reject(new DOMException("full", "QuotaExceededError")) },
      { maxDelayMs: 5 },
    );
    failing.enqueue("a", 1n, 1);
    const refused = () => {
      try {
        failing.enqueue("a", 2n, 2);
        return false;
      } catch {
        return true;
      }
    };
    await waitFor(refused, "the timed flush's failure, latched"); // no flush() asked for it
    await expectAvaError(() => failing.enqueue("a", 2n, 2), "QUOTA_EXCEEDED", /Avro stream/);
    await expectAvaError(failing.flush(), "QUOTA_EXCEEDED");
  });
});
