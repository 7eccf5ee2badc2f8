// Iceberg metadata (issue 19): the cost of writing it on every commit. A small commit (10 rows, a Parquet
// data file) on Node storage, with and without `iceberg` on the table: each commit then also writes a
// manifest and a manifest list, and each metadata version a vN.metadata.json and version-hint.text.
// Goal: metadata ≤ 20% of a small commit, i.e. ≤ 1.20× the plain commit's whole-run cost per commit.
// Both modes: background (the default of `iceberg: true`: commits within 20 ms to 1 s share a metadata
// version) and synchronous (`background: false`: a version before each commit returns).
// Commits go in blocks (AVA_BENCH_ICEBERG_BLOCK, default 10), alternating between the two tables, so that
// machine noise hits both alike; a block's time includes waiting for its metadata (exportIceberg() at its
// end makes it current at once). Wall time is load-sensitive on a shared machine, so CPU
// time (process.cpuUsage: every thread, so the file system's worker threads too) is shown beside it.
// AVA_BENCH_ICEBERG_COMMITS sets how many commits of each (default 300).
import { mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ava from "../src/index.js";
import { nodeStorage } from "../src/node.js";
import { makeBatch, schema } from "./data.js";
import { median, printTable, ratio } from "./lib.js";

const COMMITS = Number(process.env.AVA_BENCH_ICEBERG_COMMITS ?? 300);
const BLOCK = Number(process.env.AVA_BENCH_ICEBERG_BLOCK ?? 10);

async function open(iceberg: boolean | { background: boolean }, fsync: boolean) {
  const root = await mkdtemp(join(tmpdir(), "ava-bench-iceberg-"));
  const def = ava.defineNamespace({
    name: "bench",
    // Both sides write a data file per commit (Iceberg tables do not inline): the ratio is the metadata's cost.
    tables: { points: ava.table({ schema, iceberg, inline: false }) },
  });
  const ns = await def.open({ storage: nodeStorage({ root, fsync }) });
  await ns.push();
  return { ns, root };
}

interface Side {
  /** Each commit's latency (until append() returned). */
  latencies: number[];
  /** Whole-run wall and CPU time, metadata included. */
  wallMs: number;
  cpuMs: number;
}

async function compare(fsync: boolean, background: boolean): Promise<[Side, Side, number]> {
  const plain = await open(false, fsync);
  // `iceberg: true` is background metadata (the default); synchronous is asked for.
  const withMetadata = await open(background ? true : { background }, fsync);
  const rows = makeBatch(0, 10);
  const sides: [Side, Side] = [
    { latencies: [], wallMs: 0, cpuMs: 0 },
    { latencies: [], wallMs: 0, cpuMs: 0 },
  ];
  for (let i = 0; i < COMMITS; i += BLOCK) {
    for (const [k, { ns }] of [plain, withMetadata].entries()) {
      const side = sides[k]!;
      const cpu = process.cpuUsage();
      const start = performance.now();
      for (let j = 0; j < BLOCK; j++) {
        const t0 = performance.now();
        await ns.points.append(rows);
        side.latencies.push(performance.now() - t0);
      }
      if (k === 1) await ava.exportIceberg(ns.storage, "bench", "points");
      side.wallMs += performance.now() - start;
      const used = process.cpuUsage(cpu);
      side.cpuMs += (used.user + used.system) / 1000;
    }
  }
  const folder = join(withMetadata.root, "data/bench/points/metadata");
  const versions = (await readdir(folder)).filter((f) => f.endsWith(".metadata.json")).length;
  return [sides[0], sides[1], versions];
}

export async function benchIceberg(): Promise<void> {
  const rows = [];
  for (const fsync of [true, false])
    for (const background of [false, true]) {
      const [plain, iceberg, versions] = await compare(fsync, background);
      const mode = `${background ? "background" : "synchronous"}, fsync ${fsync ? "on" : "off"}`;
      const tail = (xs: number[]) => xs.slice(Math.floor(xs.length * 0.9));
      if (!background)
        rows.push({
          case: `plain small commit (10 rows), fsync ${fsync ? "on" : "off"}`,
          median_ms: median(plain.latencies),
          note: `${COMMITS} commits; whole run ${(plain.wallMs / COMMITS).toFixed(2)} ms, CPU ${(plain.cpuMs / COMMITS).toFixed(2)} ms per commit`,
        });
      rows.push(
        {
          case: `Iceberg ${mode}: whole run per commit (TARGET ≤ 1.20×)`,
          median_ms: iceberg.wallMs / COMMITS,
          ratio: ratio(iceberg.wallMs, plain.wallMs),
          note: `CPU ${(iceberg.cpuMs / COMMITS).toFixed(2)} ms per commit, ${ratio(iceberg.cpuMs, plain.cpuMs)} the plain CPU; ${versions} metadata versions for ${COMMITS} commits`,
        },
        {
          case: `Iceberg ${mode}: commit latency`,
          median_ms: median(iceberg.latencies),
          ratio: ratio(median(iceberg.latencies), median(plain.latencies)),
          note: `last tenth (≈${COMMITS} snapshots listed): ${ratio(median(tail(iceberg.latencies)), median(tail(plain.latencies)))}`,
        },
      );
    }
  printTable("Iceberg metadata per commit (Node storage)", rows);
}
