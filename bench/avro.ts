// Avro stream files in Node: write and read 10M double points (1,000 points a record, 100 channels) with
// each codec; beside it avsc's BlockEncoder/BlockDecoder on the same records with BigInt timestamps (the
// generic path a user would otherwise take); and ingest of the file into a nodeStorage table.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import avsc from "avsc";
import * as ava from "../src/node.js";
import { median, printTable, type Row, rate, ratio, repeat } from "./lib.js";

const POINTS_PER_RECORD = 1000;
const CHANNELS = 100;
const RECORDS = 10_000;
const POINTS = POINTS_PER_RECORD * RECORDS;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

function makeRecords(): ava.avro.AvroStreamRecord[] {
  return Array.from({ length: RECORDS }, (_, r) => ({
    channel: `channel_${r % CHANNELS}`,
    timestamps: BigInt64Array.from(
      { length: POINTS_PER_RECORD },
      (_, i) => 1_757_500_000_000_000_000n + BigInt(r * POINTS_PER_RECORD + i),
    ),
    values: {
      kind: "double" as const,
      values: Float64Array.from({ length: POINTS_PER_RECORD }, (_, i) => Math.sin(r + i / 100)),
    },
    tags: { vehicle: "sn-001" },
  }));
}

// avsc's documented way to decode longs as BigInt.
const bigintLong = avsc.types.LongType.__with({
  fromBuffer: (buf: Buffer) => buf.readBigInt64LE(),
  toBuffer: (n: bigint) => {
    const buf = Buffer.alloc(8);
    buf.writeBigInt64LE(n);
    return buf;
  },
  fromJSON: BigInt,
  toJSON: Number,
  isValid: (n: unknown) => typeof n === "bigint",
  compare: (a: bigint, b: bigint) => (a === b ? 0 : a < b ? -1 : 1),
});

async function avscWrite(type: avsc.Type, records: unknown[], codec: string): Promise<Buffer> {
  const encoder = new avsc.streams.BlockEncoder(type, { codec });
  const chunks: Buffer[] = [];
  const sink = new PassThrough();
  sink.on("data", (c: Buffer) => chunks.push(c));
  const done = new Promise((resolve) => sink.on("end", resolve));
  encoder.pipe(sink);
  for (const r of records) encoder.write(r);
  encoder.end();
  await done;
  return Buffer.concat(chunks);
}

async function avscRead(bytes: Buffer): Promise<number> {
  const decoder = new avsc.streams.BlockDecoder({
    parseHook: (schema: unknown) =>
      avsc.Type.forSchema(schema as avsc.Schema, { registry: { long: bigintLong } }),
  });
  let points = 0;
  decoder.on("data", (r: { values: unknown[] }) => {
    points += r.values.length;
  });
  const done = new Promise((resolve, reject) => {
    decoder.on("end", resolve);
    decoder.on("error", reject);
  });
  decoder.end(bytes);
  await done;
  return points;
}

export async function benchAvro(): Promise<void> {
  const records = makeRecords();
  const type = avsc.Type.forSchema(ava.avro.AVRO_STREAM_SCHEMA as unknown as avsc.Schema, {
    registry: { long: bigintLong },
  });
  const avscRecords = records.map((r) => ({
    channel: r.channel,
    timestamps: Array.from(r.timestamps),
    values: Array.from(r.values.values as Float64Array, (v) => ({ double: v })),
    tags: r.tags,
  }));
  const table: Row[] = [];
  let nullFile: Uint8Array | undefined;
  for (const codec of ava.avro.CODECS) {
    let bytes: Uint8Array = new Uint8Array(0);
    const write = await repeat(RUNS, async () => {
      bytes = await ava.avro.encodeAvroStream(records, { codec, recordsPerBlock: 250 });
    });
    if (codec === "null") nullFile = bytes;
    const read = await repeat(RUNS, async () => {
      let n = 0;
      for await (const r of (await ava.avro.openAvroStream(bytes)).records()) n += r.timestamps.length;
      if (n !== POINTS) throw new Error("read lost points");
    });
    const avscCodec = codec === "null" ? "null" : codec === "deflate" ? "deflate" : undefined;
    const peerWrite = avscCodec ? await repeat(1, () => avscWrite(type, avscRecords, avscCodec)) : undefined;
    const peerBytes = avscCodec ? await avscWrite(type, avscRecords, avscCodec) : undefined;
    const peerRead = peerBytes
      ? await repeat(1, async () => {
          if ((await avscRead(peerBytes)) !== POINTS) throw new Error("avsc lost points");
        })
      : undefined;
    table.push(
      {
        case: `ours: write 10M points, ${codec}`,
        median_ms: median(write),
        rate: rate(POINTS, median(write), "points"),
        ratio: peerWrite ? ratio(median(peerWrite), median(write)) : "",
        note: `${(bytes.length / 1e6).toFixed(1)} MB; ratio = × avsc`,
      },
      {
        case: `ours: read, ${codec}`,
        median_ms: median(read),
        rate: rate(POINTS, median(read), "points"),
        ratio: peerRead ? ratio(median(peerRead), median(read)) : "",
        note: "into typed arrays; ratio = × avsc",
      },
    );
    if (peerWrite && peerRead) {
      table.push(
        {
          case: `avsc BlockEncoder, ${codec} (BigInt longs)`,
          median_ms: median(peerWrite),
          rate: rate(POINTS, median(peerWrite), "points"),
          note: "one run",
        },
        {
          case: `avsc BlockDecoder, ${codec} (BigInt longs)`,
          median_ms: median(peerRead),
          rate: rate(POINTS, median(peerRead), "points"),
          note: "one run",
        },
      );
    }
  }
  // Ingest: the null-codec file into a nodeStorage table, end to end.
  const dir = await mkdtemp(join(tmpdir(), "ava-bench-avro-"));
  const Telemetry = ava.defineNamespace({
    name: "telemetry",
    tables: { points: ava.table({ schema: ava.avro.avroStreamArrowSchema }) },
  });
  const ingest = await repeat(1, async (run) => {
    const ns = await Telemetry.open({ storage: ava.nodeStorage({ root: join(dir, `r${run}`) }) });
    await ns.push();
    await ns.points.appendAvroStream(nullFile!);
  });
  table.push({
    case: "ingest the 10M-point file into a nodeStorage table",
    median_ms: median(ingest),
    rate: rate(POINTS, median(ingest), "points"),
    note: "target ≥ 2 M points/s",
  });
  await rm(dir, { recursive: true, force: true });
  printTable(
    `Avro streams in Node: 10M double points, 1,000 a record, 100 channels (ours: median of ${RUNS})`,
    table,
  );
}
