// The benchmark rows: 6 telemetry-like columns, generated deterministically, shared by every bench.
import * as A from "apache-arrow";

export const BATCH = 100_000;

export const schema = new A.Schema([
  new A.Field("sensor", new A.Utf8(), false),
  new A.Field("ts", new A.Int64(), false),
  new A.Field("value", new A.Float64(), false),
  new A.Field("count", new A.Int32(), false),
  new A.Field("ok", new A.Bool(), false),
  new A.Field("note", new A.Utf8(), true),
]);

const SENSORS = ["engine.temp", "engine.rpm", "cabin.temp", "gps.lat", "gps.lon"];

/** Batch `b` of `n` rows (rows b*n … b*n+n-1 of one long series). */
export function makeBatch(b: number, n = BATCH): A.Table {
  return new A.Table({
    sensor: A.vectorFromArray(
      Array.from({ length: n }, (_, i) => SENSORS[i % SENSORS.length]!),
      new A.Utf8(),
    ),
    ts: A.makeVector(BigInt64Array.from({ length: n }, (_, i) => BigInt(b * n + i) * 1_000_000n)),
    value: A.makeVector(Float64Array.from({ length: n }, (_, i) => Math.sin((b * n + i) / 1000) * 100)),
    count: A.makeVector(Int32Array.from({ length: n }, (_, i) => i % 1000)),
    ok: A.vectorFromArray(
      Array.from({ length: n }, (_, i) => i % 7 !== 0),
      new A.Bool(),
    ),
    note: A.vectorFromArray(
      Array.from({ length: n }, (_, i) => (i % 10 === 0 ? `note ${i}` : null)),
      new A.Utf8(),
    ),
  });
}

/** The same rows as plain objects, as an offline app would keep them in IndexedDB today. */
export function makeObjects(b: number, n = BATCH): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => ({
    id: b * n + i,
    sensor: SENSORS[i % SENSORS.length],
    ts: (b * n + i) * 1_000_000,
    value: Math.sin((b * n + i) / 1000) * 100,
    count: i % 1000,
    ok: i % 7 !== 0,
    note: i % 10 === 0 ? `note ${i}` : null,
  }));
}
