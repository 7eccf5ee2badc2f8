// The SQL bench table: telemetry rows (channel, ts, value), 100 channels, shared by Node and Chromium.
import * as A from "apache-arrow";

export const CHANNELS = 100;
export const GROUP_BY = `SELECT channel, count(*) AS n, avg(value) AS mean, min(ts) AS first, max(ts) AS last
  FROM telemetry GROUP BY channel ORDER BY channel`;

export const telemetrySchema = new A.Schema([
  new A.Field("channel", new A.Utf8(), false),
  new A.Field("ts", new A.Int64(), false),
  new A.Field("value", new A.Float64(), false),
]);

/** Rows `from` … `from + count - 1` of one long series. */
export function telemetryRows(from: number, count: number): A.Table {
  const names = Array.from({ length: CHANNELS }, (_, c) => `channel_${c}`);
  return A.tableFromArrays({
    channel: Array.from({ length: count }, (_, i) => names[(from + i) % CHANNELS]!),
    ts: BigInt64Array.from({ length: count }, (_, i) => BigInt(from + i)),
    value: Float64Array.from({ length: count }, (_, i) => Math.sin(from + i)),
  });
}

/** The hand-written peer: one pass over the Arrow vectors, grouping by channel in a Map. */
export function loopGroupBy(table: A.Table): number {
  const groups = new Map<string, { n: number; sum: number; first: bigint; last: bigint }>();
  for (const batch of table.batches) {
    const channel = batch.getChild("channel")!;
    const ts = batch.getChild("ts")!.toArray() as BigInt64Array;
    const value = batch.getChild("value")!.toArray() as Float64Array;
    for (let i = 0; i < batch.numRows; i++) {
      const key = channel.get(i) as string;
      let g = groups.get(key);
      if (!g) {
        g = { n: 0, sum: 0, first: ts[i]!, last: ts[i]! };
        groups.set(key, g);
      }
      g.n++;
      g.sum += value[i]!;
      if (ts[i]! < g.first) g.first = ts[i]!;
      if (ts[i]! > g.last) g.last = ts[i]!;
    }
  }
  return groups.size;
}
