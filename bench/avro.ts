// Avro stream files in Node: write and read 10M double points (1,000 points a record, 100 channels) with
// each codec; beside it avsc's BlockEncoder/BlockDecoder on the same records with BigInt timestamps (the
// generic path a user would otherwise take); and ingest of the file into a nodeStorage table.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import avsc from "avsc";
import * as ava from "../src/node.js";
import { avroRecords, POINTS, RECORDS } from "./avro-data.js";
import { benchAvroWriter } from "./avro-writer.js";
import { type Avsc, avscPeer } from "./avsc-blocks.js";
import { runBenchPage } from "./browser-page.js";
import { median, printTable, type Row, rate, ratio, repeat } from "./lib.js";
import { zstandardCopy } from "./zstd-file.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);

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
  let readReuse: number[] = [];
  for (const codec of ava.avro.CODECS) {
    let bytes: Uint8Array = new Uint8Array(0);
    const write = await repeat(RUNS, async () => {
      bytes = await ava.avro.encodeAvroStream(records, { codec, recordsPerBlock: 250 });
    });
    const readAll = (reuse: boolean) => async () => {
      let n = 0;
      for await (const r of (await ava.avro.openAvroStream(bytes)).records({ reuse }))
        n += r.timestamps.length;
      if (n !== POINTS) throw new Error("read lost points");
    };
    const read = await repeat(RUNS, readAll(false));
    byCodec[codec] = { write, read, bytes: bytes.length };
    if (codec === "null") {
      nullFile = bytes;
      readReuse = await repeat(RUNS, readAll(true));
    }
  }
  // zstandard is read, not written: a copy of the null-codec file whose blocks Python's zstandard compressed.
  const zstdFile = zstandardCopy(nullFile!);
  let readZstd: number[] | undefined;
  if (zstdFile) {
    const readAll = async () => {
      let n = 0;
      for await (const r of (await ava.avro.openAvroStream(zstdFile)).records()) n += r.timestamps.length;
      if (n !== POINTS) throw new Error("read lost points");
    };
    await readAll(); // warm
    readZstd = await repeat(RUNS, readAll);
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
  return { byCodec, readReuse, readZstd, zstdBytes: zstdFile?.length, ingest };
}

/** avsc on the same records (null and deflate: the codecs it has), its objects built and dropped here. */
async function benchAvsc(records: ava.avro.AvroStreamRecord[]) {
  const peer = avscPeer(avsc as unknown as Avsc, Buffer);
  const avscRecords = peer.records(records);
  await peer.read(await peer.write(avscRecords.slice(0, RECORDS / 10), "null")); // warm-up
  const out: Partial<Record<ava.avro.AvroCodec, { write: number[]; read: number[] }>> = {};
  for (const codec of ["null", "deflate"] as const) {
    let bytes: Uint8Array = new Uint8Array(0);
    const write = await repeat(1, async () => {
      bytes = await peer.write(avscRecords, codec);
    });
    const read = await repeat(1, async () => {
      if ((await peer.read(bytes)) !== POINTS) throw new Error("avsc lost points");
    });
    out[codec] = { write, read };
  }
  return out;
}

export async function benchAvro(): Promise<void> {
  await benchAvroWriter();
  if (process.env.BENCH_AVRO === "writer") return; // the writer and avroStreamToArrow alone
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
    if (codec === "null") {
      table.push({
        case: "ours: read, null, records({ reuse: true })",
        median_ms: median(ours.readReuse),
        rate: rate(POINTS, median(ours.readReuse), "points"),
        ratio: ratio(median(peerRead!), median(ours.readReuse)),
        note: "each record decoded into the same buffers; ratio = × avsc",
      });
      nodeMedians.read_null_reuse = median(ours.readReuse);
    }
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
  if (ours.readZstd) {
    table.push({
      case: "ours: read, zstandard",
      median_ms: median(ours.readZstd),
      rate: rate(POINTS, median(ours.readZstd), "points"),
      note: `${(ours.zstdBytes! / 1e6).toFixed(1)} MB, its blocks compressed by Python's zstandard (level 3)`,
    });
  } else console.log("(zstandard read skipped: /usr/bin/python3 has no zstandard module)");
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

  // The same in Chromium, beside avsc's BlockEncoder/BlockDecoder on browserify's shims
  // (bench/browser/avsc-peer.ts).
  const t = await runBenchPage("avro.html");
  const browserRows: Row[] = [];
  const peerOf: Record<string, string> = {
    write_null: "avsc_write",
    read_null: "avsc_read",
    read_null_reuse: "avsc_read",
  };
  const keys = ava.avro.CODECS.flatMap((c) => [`write_${c}`, `read_${c}`]);
  keys.splice(2, 0, "read_null_reuse");
  for (const key of [...keys, "ingest"]) {
    const peer = peerOf[key] && t[peerOf[key]];
    const label = key === "read_null_reuse" ? "read, null, records({ reuse: true })" : key.replace("_", ", ");
    browserRows.push({
      case: key === "ingest" ? "ingest into a browserStorage table (OPFS)" : `ours: ${label}`,
      median_ms: median(t[key]!),
      rate: rate(POINTS, median(t[key]!), "points"),
      ratio: peer ? ratio(median(peer), median(t[key]!)) : "",
      note: `${peer ? "ratio = × avsc's Block codec; " : ""}time ${ratio(median(t[key]!), nodeMedians[key]!)} ours in Node`,
    });
  }
  for (const [key, label] of [
    ["avsc_write", "avsc BlockEncoder, null (BigInt longs)"],
    ["avsc_read", "avsc BlockDecoder, null (BigInt longs)"],
    ["avsc_record_write", "avsc Type.toBuffer alone, record by record (no container)"],
    ["avsc_record_read", "avsc Type.fromBuffer alone, record by record (no container)"],
  ] as const) {
    browserRows.push({
      case: label,
      median_ms: median(t[key]!),
      rate: rate(POINTS, median(t[key]!), "points"),
      note: "one run",
    });
  }
  printTable(
    "Avro streams in headless Chromium: the same 10M points (medians of 3; ingest and avsc: one run)",
    browserRows,
  );
}
