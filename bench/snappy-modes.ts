// Snappy "fast" against "small" (createWriter's `snappy`), on the live bench's batches: 50 random-walk
// channels, 250,000 points a batch, with timestamps from 0 (as bench/live-data.ts) and from an epoch in ns.
// Usage: node --import tsx bench/snappy-modes.ts [batches]; prints each mode's median time per batch and its
// file size against the null codec's.
import { type AvroCodec, createWriter, memorySink, type SnappyMode } from "../src/avro.js";
import { median } from "./lib.js";
import { BATCH, CHANNELS, liveRounds } from "./live-data.js";

const n = Number(process.argv[2] ?? 8);
const EPOCH_NS = 1_757_500_000_000_000_000n;

async function encode(ts: BigInt64Array, values: Float64Array[], codec: AvroCodec, snappy: SnappyMode) {
  const sink = memorySink();
  const w = createWriter(sink, { codec, snappy, maxBatchPoints: BATCH });
  for (let c = 0; c < CHANNELS; c++) w.enqueueBatch(`ch${c}`, ts, values[c]!);
  await w.close();
  return sink.bytes().length;
}

for (const [name, shift] of [
  ["timestamps from 0 (the live bench's)", 0n],
  ["epoch-ns timestamps", EPOCH_NS],
] as const) {
  const rounds = liveRounds(n).map((r) => ({ ...r, ts: r.ts.map((t) => t + shift) }));
  let plain = 0;
  for (const { ts, values } of rounds) plain += await encode(ts, values, "null", "fast");
  for (const codec of ["null", "snappy-fast", "snappy-small"] as const) {
    const [c, snappy] =
      codec === "null" ? (["null", "fast"] as const) : (["snappy", codec.slice(7) as SnappyMode] as const);
    const cpu: number[] = [];
    let bytes = 0;
    for (const { ts, values } of rounds) {
      const t0 = process.cpuUsage();
      bytes += await encode(ts, values, c, snappy);
      const used = process.cpuUsage(t0);
      cpu.push((used.user + used.system) / 1000);
    }
    console.log(
      `${name}, ${codec}: ${median(cpu.slice(1)).toFixed(1)} ms CPU a 250k-point batch (encoding included), ${(bytes / plain).toFixed(3)} of the null codec's ${(plain / n / 2 ** 20).toFixed(2)} MiB`,
    );
  }
}
