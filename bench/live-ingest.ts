// The receiving side alone (`npm run bench -- live`, first table): ingestHandler called in this process on
// the batch files the live stream sends — no HTTP, no sender — so its rate is the ceiling of the end-to-end
// cases, and the CPU per million points says where a quiet machine would land. Parquet written as the
// endpoint does by default (uncompressed, the JS flat writer) beside zstd through parquet-wasm (what every
// append wrote before), for snappy and null-codec batches.
import type { AvroCodec } from "../src/avro.js";
import * as ava from "../src/node.js";
import type { ParquetCompression } from "../src/parquet/parquet.js";
import { median, type Row, rate } from "./lib.js";
import {
  BATCH,
  batchFiles,
  INGEST_ROUNDS,
  LIVE_RUNS,
  liveRounds,
  TARGET_NODE,
  versusTarget,
} from "./live-data.js";

const Telemetry = ava.defineNamespace({
  name: "telemetry",
  tables: { points: ava.table({ schema: ava.avro.avroStreamArrowSchema }) },
});

interface Run {
  ms: number;
  cpuMs: number;
}

/**
 * A fresh table under `root` and its ingestHandler called in this process, as `post(body, key)`; `warmUp` is
 * posted once first, so wasm and JIT are ready. Also the profiling harness's (profile-ingest.ts).
 */
export async function inProcessIngest(
  root: string,
  warmUp: Uint8Array,
  compression: ParquetCompression = "uncompressed",
): Promise<(body: Uint8Array, key: string) => Promise<Response>> {
  const ns = await Telemetry.open({ storage: ava.nodeStorage({ root, fsync: false }) });
  await ns.push();
  const handle = ava.ingestHandler(ns.points, { compression, maxBytes: 256 * 2 ** 20 });
  const post = (body: Uint8Array, key: string) =>
    handle(
      new Request("http://127.0.0.1/ingest", {
        method: "POST",
        headers: { "idempotency-key": key },
        body: body as Uint8Array<ArrayBuffer>,
      }),
    );
  await (await post(warmUp, "warm-up")).arrayBuffer();
  return post;
}

/** Every file through a fresh table's handler. */
async function ingestOnce(
  files: readonly Uint8Array[],
  compression: ParquetCompression,
  root: string,
): Promise<Run> {
  const post = await inProcessIngest(root, files[0]!, compression);
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  for (const [i, body] of files.entries()) {
    const res = await post(body, `batch-${i}`);
    if (!res.ok) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
  }
  const ms = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000 };
}

export async function ingestAlone(temp: (tag: string) => Promise<string>): Promise<Row[]> {
  const data = liveRounds(INGEST_ROUNDS);
  const points = INGEST_ROUNDS * BATCH;
  const rows: Row[] = [];
  for (const codec of ["snappy", "null"] as AvroCodec[]) {
    const files = await batchFiles(data, codec);
    for (const compression of ["zstd", "uncompressed"] as ParquetCompression[]) {
      const runs: Run[] = [];
      for (let i = 0; i < LIVE_RUNS; i++)
        runs.push(await ingestOnce(files, compression, await temp("alone")));
      const ms = median(runs.map((r) => r.ms));
      const cpuMs = median(runs.map((r) => r.cpuMs));
      const writer =
        compression === "zstd" ? "zstd via parquet-wasm" : "uncompressed, JS flat writer (default)";
      rows.push({
        case: `ingestHandler in-process: ${codec} batches, Parquet ${writer}`,
        median_ms: ms,
        rate: rate(points, ms, "points"),
        ratio: `${(((points / ms) * 1000) / TARGET_NODE).toFixed(2)}× target`,
        note: `${versusTarget(points, ms, TARGET_NODE)}; CPU ${(cpuMs / (points / 1e6)).toFixed(0)} ms per 1M points (one core at 100% = ${(1e6 / (cpuMs / (points / 1e6)) / 1e3).toFixed(1)}M points/s)`,
      });
    }
  }
  return rows;
}
