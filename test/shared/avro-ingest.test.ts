// Avro stream files into tables: one snapshot per file, tags filled (record tags win), timestamps read
// in the declared unit, and a damaged file refused whole.
import { describe, expect, it } from "vitest";
import * as ava from "../../src/index.js";
import { expectAvaError } from "./fixtures.js";

const Telemetry = ava.defineNamespace({
  name: "telemetry",
  tables: { points: ava.table({ schema: ava.avro.avroStreamArrowSchema }) },
});

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
  });
});
