// Avro stream files in Node: write and read 10M double points (1,000 points a record, 100 channels) with
// each codec; beside it avsc's BlockEncoder/BlockDecoder on the same records with BigInt timestamps (the
// generic path a user would otherwise take); and ingest of the file into a nodeStorage table.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import avsc from "avsc";
import * as ava from "../src/node.js";
import { avroRecords, POINTS, RECORDS } from "./avro-data.js";
import { bigintLongHooks } from "./avsc-long.js";
import { runBenchPage } from "./browser-page.js";
import { median, printTable, type Row, rate, ratio, repeat } from "./lib.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);

// avsc's documented way to decode longs as BigInt.
const bigintLong = avsc.types.LongType.__with(bigintLongHooks(Buffer));

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

interface Timings {
  write: number[];
  read: number[];
  bytes: number;
}

/** Ours, every codec, then the ingest: run before any avsc object exists, so that its 10M-object graph
 * does not load every garbage collection of ours (it tripled our times when both were alive). */
async function benchOurs(records: ava.avro.AvroStreamRecord[]) {
  // One untimed pass of each path on a tenth of the points first, so that every median is of JIT-warm code.
  for (const codec of ava.avro.CODECS) {
    const file = await ava.avro.encodeAvroStream(records.slice(0, RECORDS / 10), { codec });
    for await (const _ of (await ava.avro.openAvroStream(file)).records());
  }
  const byCodec: Partial<Record<ava.avro.AvroCodec, Timings>> = {};
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
    byCodec[codec] = { write, read, bytes: bytes.length };
  }
  // Ingest: the null-codec file into a nodeStorage table, end to end.
  const dir = await mkdtemp(join(tmpdir(), "ava-bench-avro-"));
  const Telemetry = ava.defineNamespace({
    name: "telemetry",
    tables: { points: ava.table({ schema: ava.avro.avroStreamArrowSchema }) },
  });
  const ingestInto = async (folder: string, file: Uint8Array) => {
    const ns = await Telemetry.open({ storage: ava.nodeStorage({ root: join(dir, folder) }) });
    await ns.push();
    await ns.points.appendAvroStream(file);
  };
  // Warm, like every other path: a file of a tenth of the points, untimed (the first ingest also compiles
  // the Parquet wasm's hot paths).
  await ingestInto(
    "warm",
    await ava.avro.encodeAvroStream(records.slice(0, RECORDS / 10), { codec: "null" }),
  );
  const ingest = await repeat(RUNS, (run) => ingestInto(`r${run}`, nullFile!));
  await rm(dir, { recursive: true, force: true });
  return { byCodec, ingest };
}

/** avsc on the same records (null and deflate: the codecs it has), its objects built and dropped here. */
async function benchAvsc(records: ava.avro.AvroStreamRecord[]) {
  const type = avsc.Type.forSchema(ava.avro.AVRO_STREAM_SCHEMA as unknown as avsc.Schema, {
    registry: { long: bigintLong },
  });
  const avscRecords = records.map((r) => ({
    channel: r.channel,
    timestamps: Array.from(r.timestamps),
    values: Array.from(r.values.values as Float64Array, (v) => ({ double: v })),
    tags: r.tags,
  }));
  await avscRead(await avscWrite(type, avscRecords.slice(0, RECORDS / 10), "null")); // warm-up
  const out: Partial<Record<ava.avro.AvroCodec, { write: number[]; read: number[] }>> = {};
  for (const codec of ["null", "deflate"] as const) {
    let bytes: Buffer = Buffer.alloc(0);
    const write = await repeat(1, async () => {
      bytes = await avscWrite(type, avscRecords, codec);
    });
    const read = await repeat(1, async () => {
      if ((await avscRead(bytes)) !== POINTS) throw new Error("avsc lost points");
    });
    out[codec] = { write, read };
  }
  return out;
}

export async function benchAvro(): Promise<void> {
  const records = avroRecords();
  const ours = await benchOurs(records);
  const peer = await benchAvsc(records);
  const table: Row[] = [];
  const nodeMedians: Record<string, number> = {};
  for (const codec of ava.avro.CODECS) {
    const { write, read, bytes } = ours.byCodec[codec]!;
    const peerWrite = peer[codec]?.write;
    const peerRead = peer[codec]?.read;
    nodeMedians[`write_${codec}`] = median(write);
    nodeMedians[`read_${codec}`] = median(read);
    table.push(
      {
        case: `ours: write 10M points, ${codec}`,
        median_ms: median(write),
        rate: rate(POINTS, median(write), "points"),
        ratio: peerWrite ? ratio(median(peerWrite), median(write)) : "",
        note: `${(bytes / 1e6).toFixed(1)} MB; ratio = × avsc (target ≥ 10× with null)`,
      },
      {
        case: `ours: read, ${codec}`,
        median_ms: median(read),
        rate: rate(POINTS, median(read), "points"),
        ratio: peerRead ? ratio(median(peerRead), median(read)) : "",
        note: "into typed arrays; ratio = × avsc (target ≥ 10× and ≥ 20 M/s with null)",
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
  table.push({
    case: "ingest the 10M-point file into a nodeStorage table",
    median_ms: median(ours.ingest),
    rate: rate(POINTS, median(ours.ingest), "points"),
    note: "target ≥ 2 M points/s",
  });
  nodeMedians.ingest = median(ours.ingest);
  printTable(
    `Avro streams in Node: 10M double points, 1,000 a record, 100 channels (ours: median of ${RUNS})`,
    table,
  );

  // The same in Chromium. avsc's BlockEncoder/BlockDecoder need Node's streams in a browser (TOOLCHAIN.md);
  // its record codec (Type.toBuffer/fromBuffer) is the peer there, beside ours in Node.
  const t = await runBenchPage("avro.html");
  const browserRows: Row[] = [];
  for (const key of [...ava.avro.CODECS.flatMap((c) => [`write_${c}`, `read_${c}`]), "ingest"]) {
    const peer = key === "write_null" ? t.avsc_write : key === "read_null" ? t.avsc_read : undefined;
    browserRows.push({
      case:
        key === "ingest" ? "ingest into a browserStorage table (OPFS)" : `ours: ${key.replace("_", ", ")}`,
      median_ms: median(t[key]!),
      rate: rate(POINTS, median(t[key]!), "points"),
      ratio: peer ? ratio(median(peer), median(t[key]!)) : "",
      note: `${peer ? "ratio = × avsc; " : ""}time ${ratio(median(t[key]!), nodeMedians[key]!)} ours in Node`,
    });
  }
  for (const [key, label] of [
    ["avsc_write", "avsc Type.toBuffer, record by record (BigInt longs)"],
    ["avsc_read", "avsc Type.fromBuffer, record by record (BigInt longs)"],
  ] as const) {
    browserRows.push({
      case: label,
      median_ms: median(t[key]!),
      rate: rate(POINTS, median(t[key]!), "points"),
      note: "one run",
    });
  }
  printTable(
    "Avro streams in headless Chromium: the same 10M points (medians of 3; ingest: one run)",
    browserRows,
  );
}
