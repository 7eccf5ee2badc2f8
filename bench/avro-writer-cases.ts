// The streaming writer and avroStreamToArrow beside avsc, one code path for Node and Chromium: 2M double
// points (1,000 a record, 100 channels, null codec) through createWriter + enqueueBatch, the same points one
// enqueue at a time, and avsc's BlockEncoder on the same records; then avroStreamToArrow at 2M and 10M
// points beside avsc's BlockDecoder on the same file. Ours run first, before any avsc object exists (its
// object graph slows every garbage collection of ours).
import * as avro from "../src/avro.js";
import { avroRecords, POINTS, POINTS_PER_RECORD } from "./avro-data.js";
import type { AvscPeer } from "./avsc-blocks.js";

export const WRITER_POINTS = 2_000_000;
const WRITER_RECORDS = WRITER_POINTS / POINTS_PER_RECORD;

type Clock = (runs: number, fn: () => Promise<unknown>) => Promise<number[]>;

/**
 * Where the timed runs write: a sink that takes each piece as a file sink does and keeps nothing, so the
 * writer's own cost is measured (a memorySink copies every block into its buffer: on this shared machine
 * that fresh memory costs more than the encoding; it has its own row). The points are checked on a
 * memorySink run of the same code.
 */
function discardingSink(): avro.AvroSink & { bytes(): Uint8Array } {
  let length = 0;
  return {
    async write(bytes) {
      length += bytes.length;
    },
    bytes: () => new Uint8Array(length),
  };
}

type SinkOf = () => avro.AvroSink & { bytes(): Uint8Array };

async function writeBatches(records: avro.AvroStreamRecord[], sinkOf: SinkOf = discardingSink) {
  const sink = sinkOf();
  const w = avro.createWriter(sink, { codec: "null" });
  for (const r of records) w.enqueueBatch(r.channel, r.timestamps, r.values.values as Float64Array, r.tags);
  await w.close();
  return sink.bytes();
}

async function writeSingles(records: avro.AvroStreamRecord[], sinkOf: SinkOf = discardingSink) {
  const sink = sinkOf();
  const w = avro.createWriter(sink, { codec: "null" });
  for (const r of records) {
    const ts = r.timestamps;
    const vs = r.values.values as Float64Array;
    for (let i = 0; i < ts.length; i++) w.enqueue(r.channel, ts[i]!, vs[i]!, r.tags);
  }
  await w.close();
  return sink.bytes();
}

async function countPoints(bytes: Uint8Array): Promise<number> {
  return (await avro.avroStreamToArrow(bytes)).numRows;
}

export async function writerCases(
  timed: Clock,
  avscPeer: () => Promise<AvscPeer>,
  runs = 5,
): Promise<Record<string, number[]>> {
  const all = avroRecords();
  const records = all.slice(0, WRITER_RECORDS);
  const t: Record<string, number[]> = {};
  // Untimed passes on a tenth of the points first, so that every median is of JIT-warm code.
  await countPoints(await writeBatches(records.slice(0, WRITER_RECORDS / 10), avro.memorySink));
  await writeSingles(records.slice(0, WRITER_RECORDS / 10));
  t.writer_batch = await timed(runs, () => writeBatches(records));
  t.writer_single = await timed(runs, () => writeSingles(records));
  let file: Uint8Array = new Uint8Array(0);
  t.writer_batch_memory = await timed(runs, async () => {
    file = await writeBatches(records, avro.memorySink);
  });
  if ((await countPoints(file)) !== WRITER_POINTS) throw new Error("the writer lost points");
  if ((await countPoints(await writeSingles(records, avro.memorySink))) !== WRITER_POINTS)
    throw new Error("the writer lost points");
  const file2M = file;
  t.to_arrow_2M = await timed(runs, () => avro.avroStreamToArrow(file2M));
  const file10M = await avro.encodeAvroStream(all, { codec: "null", recordsPerBlock: 250 });
  t.to_arrow_10M = await timed(Math.min(runs, 3), async () => {
    if ((await avro.avroStreamToArrow(file10M)).numRows !== POINTS) throw new Error("lost points");
  });

  const peer = await avscPeer();
  const peerRecords = peer.records(records);
  await peer.read(await peer.write(peerRecords.slice(0, WRITER_RECORDS / 10), "null")); // warm
  t.avsc_write = await timed(3, () => peer.write(peerRecords, "null"));
  t.avsc_read_2M = await timed(3, async () => {
    if ((await peer.read(file2M)) !== WRITER_POINTS) throw new Error("avsc lost points");
  });
  t.avsc_read_10M = await timed(1, async () => {
    if ((await peer.read(file10M)) !== POINTS) throw new Error("avsc lost points");
  });
  return t;
}
