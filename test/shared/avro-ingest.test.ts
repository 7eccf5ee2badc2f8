// Avro stream files into tables: one snapshot per file, tags filled (record tags win), timestamps read
// in the declared unit, and a damaged file refused whole.
import * as A from "apache-arrow";
import { describe, expect, it } from "vitest";
import * as ava from "../../src/index.js";
import { RECORDS } from "./avro-records.js";
import { expectAvaError } from "./fixtures.js";

const Telemetry = ava.defineNamespace({
  name: "telemetry",
  tables: { points: ava.table({ schema: ava.avro.avroStreamArrowSchema }) },
});

/** A column's values, list cells as plain arrays (two tables may cut the same list out of different buffers). */
function columnValues(table: A.Table, name: string): unknown[] {
  return Array.from(table.getChild(name)!, (v) => (v instanceof A.Vector ? [...v] : v));
}

async function flightFile(codec: ava.avro.AvroCodec = "snappy", unit?: ava.avro.TimestampUnit) {
  const sink = ava.avro.memorySink();
  const w = ava.avro.createWriter(sink, { codec, ...(unit ? { timestampUnit: unit } : {}) });
  const t0 = unit ? 1_000 : 1_757_500_000_000_000_000n;
  w.enqueueBatch("altitude", [t0, typeof t0 === "bigint" ? t0 + 1n : t0 + 1], [1250.5, 1251], {
    vehicle_id: "sn-001",
  });
  w.enqueue("fault_code", t0, "E07");
  w.enqueue("counts", t0, 7n);
  w.enqueue("vector", t0, [1, 2]);
  w.enqueue("labels", t0, ["a"]);
  w.enqueue("event", t0, { ok: 1 });
  await w.close();
  return sink.bytes();
}

describe("table.appendAvroStream", () => {
  it("ingests a file as one snapshot: a row per point, values in their typed column, tags filled", async () => {
    const ns = await Telemetry.open({ storage: ava.memoryStorage() });
    await ns.push();
    const res = await ns.points.appendAvroStream(await flightFile(), {
      tags: { vehicle_id: "default", site: "hq" },
    });
    expect(res.rowCount).toBe(7);
    expect(await ns.points.history()).toHaveLength(1);
    const rows = await ns.points
      .scan({
        columns: [
          "channel",
          "timestamp",
          "tags",
          "double",
          "long",
          "string",
          "double_array",
          "string_array",
          "json",
        ],
      })
      .toObjects();
    const altitude = rows.filter((r) => r.channel === "altitude");
    expect(altitude.map((r) => r.double)).toEqual([1250.5, 1251]);
    expect(altitude[0]!.tags).toEqual({ vehicle_id: "sn-001", site: "hq" }); // the record's tag wins
    expect(rows.find((r) => r.channel === "fault_code")).toMatchObject({
      string: "E07",
      double: null,
      tags: { vehicle_id: "default", site: "hq" },
    });
    expect(rows.find((r) => r.channel === "counts")!.long).toBe(7n);
    expect(rows.find((r) => r.channel === "vector")!.double_array).toEqual([1, 2]);
    expect(rows.find((r) => r.channel === "labels")!.string_array).toEqual(["a"]);
    expect(rows.find((r) => r.channel === "event")!.json).toEqual({ ok: 1 });
    // Exact nanoseconds survive the table round trip (Date objects would round them to ms).
    const ts = await ns.points
      .scan({ columns: ["timestamp"], filter: ava.where.eq("channel", "altitude") })
      .toArrow();
    expect(Array.from(ts.getChild("timestamp")!.data[0]!.values as BigInt64Array)).toEqual([
      1_757_500_000_000_000_000n,
      1_757_500_000_000_000_001n,
    ]);
  });

  it("ingests a file larger than one Arrow batch and one Parquet slice exactly, in file order", async () => {
    // 150 records of 1,000 points: several 65,536-point batches, and the Parquet encoder's streaming path.
    const records = Array.from({ length: 150 }, (_, r) => ({
      channel: `ch${r % 7}`,
      timestamps: BigInt64Array.from({ length: 1000 }, (_, i) => BigInt(r * 1000 + i)),
      values:
        r % 5 === 4
          ? { kind: "long" as const, values: BigInt64Array.from({ length: 1000 }, (_, i) => BigInt(-i)) }
          : { kind: "double" as const, values: Float64Array.from({ length: 1000 }, (_, i) => r + i / 1000) },
      tags: { r: String(r) },
    }));
    const file = await ava.avro.encodeAvroStream(records, { codec: "deflate" });
    const table = await ava.avro.avroStreamToArrow(file, { timestampType: "us" });
    expect(table.numRows).toBe(150_000);
    expect(table.batches.length).toBeGreaterThan(2);

    const ns = await Telemetry.open({ storage: ava.memoryStorage() });
    await ns.push();
    await ns.points.appendAvroStream(file, { timestampType: "us" });
    const back = await ns.points.read();
    expect(back.numRows).toBe(150_000);
    const ts = back.getChild("timestamp")!.toArray() as BigInt64Array;
    const doubles = back.getChild("double")!;
    const longs = back.getChild("long")!;
    for (const row of [0, 65_535, 65_536, 99_999, 104_321, 149_999]) {
      const r = Math.floor(row / 1000);
      const i = row % 1000;
      expect(ts[row]).toBe(BigInt(row) * 1000n); // us -> ns, mapped in place per batch
      expect(back.getChild("channel")!.get(row)).toBe(`ch${r % 7}`);
      expect(back.getChild("tags")!.get(row)).toBe(JSON.stringify({ r: String(r) }));
      if (r % 5 === 4) {
        expect(longs.get(row)).toBe(BigInt(-i));
        expect(doubles.get(row)).toBeNull();
      } else {
        expect(doubles.get(row)).toBe(r + i / 1000);
        expect(longs.get(row)).toBeNull();
      }
    }
    // the records handed to the encoder are untouched by the in-place unit mapping
    expect(records[1]!.timestamps[0]).toBe(1000n);
  });

  it("converts a streamed file (records decoded into reused buffers) exactly as the records kept whole", async () => {
    // Every value kind and a mixed record, between records that fill, straddle and exceed 65,536-point batches.
    const big = (n: number, r: number) => ({
      channel: `big${r}`,
      timestamps: BigInt64Array.from({ length: n }, (_, i) => BigInt(r * 100_000 + i)),
      values: { kind: "double" as const, values: Float64Array.from({ length: n }, (_, i) => i / 3) },
      tags: { r: String(r) },
    });
    const records = [...RECORDS, big(65_000, 1), ...RECORDS, big(70_000, 2), big(10, 3), ...RECORDS];
    const file = await ava.avro.encodeAvroStream(records, { codec: "snappy", recordsPerBlock: 4 });
    const options = { tags: { site: "lab" }, timestampType: "us" as const };
    const streamed = await ava.avro.avroStreamToArrow(file, options);
    const firstBig = RECORDS.reduce((n, r) => n + r.timestamps.length, 0);
    // channel and tag sets repeat for a whole record: dictionary-encoded, a dictionary per batch
    for (const name of ["channel", "tags"]) {
      expect(A.DataType.isDictionary(streamed.schema.fields.find((f) => f.name === name)!.type)).toBe(true);
    }
    expect(streamed.batches[1]!.getChild("channel")!.data[0]!.dictionary!.toArray()).toEqual(["big2"]);
    const whole = ava.avro.recordsToArrow(await ava.avro.readAvroStream(file), options);
    expect(streamed.numRows).toBe(records.reduce((n, r) => n + r.timestamps.length, 0));
    // [RECORDS, 65,000 + RECORDS] [70,000] [10 + RECORDS]: a batch closes before a record that would overflow it
    expect(streamed.batches.map((b) => b.numRows)).toEqual([65_000 + 2 * firstBig, 70_000, 10 + firstBig]);
    for (const { name } of streamed.schema.fields) {
      expect(columnValues(streamed, name), name).toEqual(columnValues(whole, name));
    }
    expect(streamed.getChild("double")!.get(firstBig + 64_999)).toBe(64_999 / 3);
    const ns = streamed.getChild("timestamp")!.toArray() as BigInt64Array;
    expect(ns[firstBig + 64_999]).toBe(164_999_000n); // us -> ns
  });

  it("marks exactly the double rows valid when records of odd lengths interleave kinds", async () => {
    const lengths = [3, 13, 21, 8, 1, 17];
    let t = 0n;
    const records = lengths.map((n, r) => ({
      channel: `c${r}`,
      timestamps: BigInt64Array.from({ length: n }, () => t++),
      values:
        r === 3
          ? { kind: "long" as const, values: BigInt64Array.from({ length: n }, (_, i) => BigInt(i)) }
          : { kind: "double" as const, values: Float64Array.from({ length: n }, (_, i) => i + 0.5) },
      tags: {},
    }));
    const table = ava.avro.recordsToArrow(records);
    const expected = records.flatMap((rec) =>
      Array.from(rec.values.values as ArrayLike<unknown>, (v) => (rec.values.kind === "double" ? v : null)),
    );
    expect(table.getChild("double")!.toArray().length).toBe(expected.length);
    expect(Array.from({ length: expected.length }, (_, i) => table.getChild("double")!.get(i))).toEqual(
      expected,
    );
  });

  it("reads timestamps in the declared unit, as epoch or relative to a start", async () => {
    const ns = await Telemetry.open({ storage: ava.memoryStorage() });
    await ns.push();
    const file = await flightFile("null", "ns"); // raw numbers 1000 and 1001
    await ns.points.appendAvroStream(file, { timestampType: "ms" });
    await ns.points.appendAvroStream(file, {
      timestampType: { relative: "s", start: new Date("2025-01-01T00:00:00Z") },
    });
    const t = await ns.points
      .scan({ columns: ["timestamp"], filter: ava.where.eq("channel", "altitude") })
      .toArrow();
    const start = BigInt(Date.parse("2025-01-01T00:00:00Z")) * 1_000_000n;
    expect(
      Array.from(t.getChild("timestamp")!.data.flatMap((d) => Array.from(d.values as BigInt64Array))),
    ).toEqual([
      1_000_000_000n,
      1_001_000_000n,
      start + 1_000n * 1_000_000_000n,
      start + 1_001n * 1_000_000_000n,
    ]);
  });

  it("keepRows false: files decoded into reused memory each land exactly; the result keeps only its count", async () => {
    // File A: doubles on every row (its validity bitmap all ones). File B, decoded into A's memory next:
    // records alternate longs and doubles, so a bitmap left as A wrote it would show B's longs as doubles.
    const file = (seed: number, mixed: boolean) =>
      ava.avro.encodeAvroStream(
        Array.from({ length: 80 }, (_, r) => {
          const ts = BigInt64Array.from({ length: 1000 }, (_, i) => BigInt(seed * 1e6 + r * 1000 + i));
          return mixed && r % 2 === 1
            ? {
                channel: `b${r % 3}`,
                timestamps: ts,
                values: { kind: "long" as const, values: ts },
                tags: {},
              }
            : {
                channel: `c${r % 5}`,
                tags: { seed: String(seed) },
                timestamps: ts,
                values: {
                  kind: "double" as const,
                  values: Float64Array.from({ length: 1000 }, (_, i) => seed + r + i / 1000),
                },
              };
        }),
        { codec: "snappy" },
      );
    const [a, b, c] = await Promise.all([file(1, false), file(2, true), file(3, false)]);
    const ns = await Telemetry.open({ storage: ava.memoryStorage() });
    await ns.push();
    const options = { keepRows: false, compression: "uncompressed" } as const;
    const first = await ns.points.appendAvroStream(a, { ...options, idempotencyKey: "a" });
    expect(first.rowCount).toBe(80_000);
    await expectAvaError(() => first.toArrow(), "INVALID_ARGUMENT", /keepRows/);
    await expectAvaError(() => first.toObjects(), "INVALID_ARGUMENT", /keepRows/);
    await expectAvaError(ns.points.appendAvroStream(b.subarray(0, b.length - 100), options), "AVRO_CORRUPT");
    expect((await ns.points.appendAvroStream(b, { ...options, idempotencyKey: "b" })).rowCount).toBe(80_000);
    const again = await ns.points.appendAvroStream(a, { ...options, idempotencyKey: "a" });
    expect([again.duplicate, again.rowCount, again.snapshotId]).toEqual([true, 80_000, first.snapshotId]);
    await ns.points.appendAvroStream(c, { keepRows: false, compression: "zstd" });
    const expected = [a, b, c].map((f) => ava.avro.avroStreamToArrow(f));
    const want = new A.Table((await Promise.all(expected)).flatMap((t) => t.batches));
    const back = await ns.points.read();
    expect(back.numRows).toBe(240_000);
    for (const name of ["channel", "timestamp", "tags", "double", "long"])
      expect(columnValues(back, name)).toEqual(columnValues(want, name));
  });

  it("refuses a damaged file whole: nothing is written", async () => {
    const ns = await Telemetry.open({ storage: ava.memoryStorage() });
    await ns.push();
    const file = await flightFile();
    await expectAvaError(
      ns.points.appendAvroStream(file.subarray(0, file.length - 5)),
      "AVRO_CORRUPT",
      /truncated/,
    );
    expect(await ns.points.history()).toEqual([]);
    expect(await ns.storage.files.list("data/")).toEqual([]);
    await expectAvaError(
      ns.points.appendAvroStream(file, { timestampType: "minutes" as never }),
      "INVALID_ARGUMENT",
      /minutes/,
    );
    await expectAvaError(
      ns.points.appendAvroStream(file, { compression: "lzo" as never }),
      "INVALID_ARGUMENT",
      /telemetry\.points/,
      /compression "lzo"/,
    );
    expect(await ns.points.history()).toEqual([]);
  });

  it("writes its file with the compression asked for; every one reads back the same rows", async () => {
    const ns = await Telemetry.open({ storage: ava.memoryStorage() });
    await ns.push();
    const file = await flightFile();
    for (const compression of ["zstd", "uncompressed", "lz4_raw"] as const) {
      await ns.points.appendAvroStream(file, { compression });
    }
    const rows = await ns.points.scan().toArrow();
    const n = rows.numRows / 3;
    expect(n).toBeGreaterThan(0);
    for (const column of ["channel", "timestamp", "double", "string"])
      for (const k of [1, 2])
        expect(columnValues(rows.slice(k * n, (k + 1) * n), column)).toEqual(
          columnValues(rows.slice(0, n), column),
        );
  });

  it("into a table declared otherwise: SCHEMA_MISMATCH pointing to avroStreamArrowSchema, nothing written", async () => {
    const Other = ava.defineNamespace({
      name: "other",
      tables: {
        readings: ava.table({ schema: new A.Schema([new A.Field("value", new A.Float64(), true)]) }),
      },
    });
    const ns = await Other.open({ storage: ava.memoryStorage() });
    await ns.push();
    await expectAvaError(
      ns.readings.appendAvroStream(await flightFile()),
      "SCHEMA_MISMATCH",
      /other\.readings/,
      /declare the table with ava\.table\(\{ schema: ava\.avro\.avroStreamArrowSchema \}\)/,
    );
    expect(await ns.readings.history()).toEqual([]);
    expect(await ns.storage.files.list("data/")).toEqual([]);
  });
});
