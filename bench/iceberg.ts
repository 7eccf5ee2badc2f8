// Iceberg metadata (issue 19): the cost of writing it on every commit. A small commit (10 rows, a Parquet
// data file) on Node storage, with and without `iceberg` on the table: each commit then also writes a
// manifest and a manifest list, and each metadata version a vN.metadata.json and version-hint.text.
// Goal: metadata ≤ 20% of a small commit, i.e. ≤ 1.20× the plain commit's whole-run cost per commit.
// Both modes: background (the default of `iceberg: true`: commits within 20 ms to 1 s share a metadata
// version) and synchronous (`background: false`: a version before each commit returns).
// Commits go in blocks (AVA_BENCH_ICEBERG_BLOCK, default 10), alternating between the two tables, and
// which table goes first in a block alternates from round to round, so that machine noise and any order
// effect hit both alike; a block's time includes waiting for its metadata (exportIceberg() at its end makes
// it current at once). Wall time is load-sensitive on a shared machine, so CPU time (process.cpuUsage: every
// thread, so the file system's worker threads too) is shown beside it.
// Before the measured commits of every round, both sides do the same work on throwaway tables
// (AVA_BENCH_ICEBERG_WARMUP commits each, default 200), unmeasured: the first few hundred commits of a
// process are JIT warm-up (5–8 ms each instead of ~1.5), which swamped the ratio of short runs.
// AVA_BENCH_ICEBERG_COMMITS sets how many measured commits of each (default 300; AVA_BENCH_ICEBERG_COMMITS=3000
// shows what grows with the history), AVA_BENCH_ICEBERG_ROUNDS how many rounds of every mode (default 3):
// the table gives medians of the rounds' ratios, and each round's ratio beside them.
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ava from "../src/index.js";
import { nodeStorage } from "../src/node.js";
import { makeBatch, schema } from "./data.js";
import { median, printTable } from "./lib.js";

const COMMITS = Number(process.env.AVA_BENCH_ICEBERG_COMMITS ?? 300);
const BLOCK = Number(process.env.AVA_BENCH_ICEBERG_BLOCK ?? 10);
const ROUNDS = Number(process.env.AVA_BENCH_ICEBERG_ROUNDS ?? 3);
const WARMUP = Number(process.env.AVA_BENCH_ICEBERG_WARMUP ?? 200);

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

type Bench = Awaited<ReturnType<typeof open>>["ns"];

interface Side {
  /** Each commit's latency (until append() returned). */
  latencies: number[];
  /** Whole-run wall and CPU time, metadata included. */
  wallMs: number;
  cpuMs: number;
  /** CPU time of each block, to tell what grows with the history (the first tenth against the last). */
  blockCpuMs: number[];
}

interface Round {
  plain: Side;
  iceberg: Side;
  versions: number;
  /** The newest metadata JSON's size: it lists every snapshot, and each version writes it whole. */
  jsonBytes: number;
}

/** `count` commits on each side, in blocks that alternate between them (`icebergFirst`: Iceberg's block first). */
async function run(
  plain: Bench,
  withMetadata: Bench,
  count: number,
  icebergFirst: boolean,
  sides?: [Side, Side],
): Promise<void> {
  const rows = makeBatch(0, 10);
  const order = icebergFirst ? [1, 0] : [0, 1];
  for (let i = 0; i < count; i += BLOCK) {
    for (const k of order) {
      const ns = k === 0 ? plain : withMetadata;
      const side = sides?.[k];
      const cpu = process.cpuUsage();
      const start = performance.now();
      for (let j = 0; j < BLOCK; j++) {
        const t0 = performance.now();
        await ns.points.append(rows);
        side?.latencies.push(performance.now() - t0);
      }
      if (k === 1) await ava.exportIceberg(ns.storage, "bench", "points");
      if (!side) continue;
      side.wallMs += performance.now() - start;
      const used = process.cpuUsage(cpu);
      side.cpuMs += (used.user + used.system) / 1000;
      side.blockCpuMs.push((used.user + used.system) / 1000);
    }
  }
}

async function compare(fsync: boolean, background: boolean, round: number): Promise<Round> {
  // `iceberg: true` is background metadata (the default); synchronous is asked for.
  const iceberg = background ? true : { background };
  if (WARMUP > 0) {
    const warm = [await open(false, fsync), await open(iceberg, fsync)];
    await run(warm[0]!.ns, warm[1]!.ns, WARMUP, round % 2 === 1);
    for (const w of warm) await rm(w.root, { recursive: true, force: true });
  }
  const plain = await open(false, fsync);
  const withMetadata = await open(iceberg, fsync);
  const side = (): Side => ({ latencies: [], wallMs: 0, cpuMs: 0, blockCpuMs: [] });
  const sides: [Side, Side] = [side(), side()];
  await run(plain.ns, withMetadata.ns, COMMITS, round % 2 === 1, sides);
  const folder = join(withMetadata.root, "data/bench/points/metadata");
  const versions = (await readdir(folder)).filter((f) => f.endsWith(".metadata.json"));
  const newest = Math.max(...versions.map((f) => Number(f.slice(1, -".metadata.json".length))));
  const jsonBytes = (await stat(join(folder, `v${newest}.metadata.json`))).size;
  for (const s of [plain, withMetadata]) await rm(s.root, { recursive: true, force: true });
  return { plain: sides[0], iceberg: sides[1], versions: versions.length, jsonBytes };
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
const tenth = (xs: readonly number[], last: boolean) => {
  const n = Math.max(1, Math.floor(xs.length / 10));
  return last ? xs.slice(-n) : xs.slice(0, n);
};
const times = (x: number) => `${x.toFixed(2)}×`;
/** A side's median CPU per commit in the first or last tenth of the history, in ms. */
function tenthMs(runs: readonly Round[], side: "plain" | "iceberg", last: boolean): string {
  const perCommit = (blocks: readonly number[]) => sum(blocks) / (blocks.length * BLOCK);
  return median(runs.map((r) => perCommit(tenth(r[side].blockCpuMs, last)))).toFixed(2);
}

export async function benchIceberg(): Promise<void> {
  const modes = [true, false].flatMap((fsync) => [false, true].map((background) => ({ fsync, background })));
  // Rounds go through every mode before the next round, so a stretch of machine noise hits them alike.
  const rounds = new Map(modes.map((m) => [m, [] as Round[]]));
  for (let r = 0; r < ROUNDS; r++)
    for (const m of modes) rounds.get(m)!.push(await compare(m.fsync, m.background, r));
  const rows = [];
  for (const m of modes) {
    const runs = rounds.get(m)!;
    const mode = `${m.background ? "background" : "synchronous"}, fsync ${m.fsync ? "on" : "off"}`;
    const med = (f: (r: Round) => number) => median(runs.map(f));
    const perCommit = (ms: number) => (ms / COMMITS).toFixed(2);
    if (!m.background)
      rows.push({
        case: `plain small commit (10 rows), fsync ${m.fsync ? "on" : "off"}`,
        median_ms: med((r) => median(r.plain.latencies)),
        note: `${COMMITS} commits × ${ROUNDS} rounds; whole run ${perCommit(med((r) => r.plain.wallMs))} ms, CPU ${perCommit(med((r) => r.plain.cpuMs))} ms per commit`,
      });
    const cpuRatio = (r: Round, last: boolean) =>
      sum(tenth(r.iceberg.blockCpuMs, last)) / sum(tenth(r.plain.blockCpuMs, last));
    rows.push(
      {
        case: `Iceberg ${mode}: whole run per commit (TARGET ≤ 1.20×)`,
        median_ms: med((r) => r.iceberg.wallMs) / COMMITS,
        ratio: times(med((r) => r.iceberg.wallMs / r.plain.wallMs)),
        note: `rounds ${runs.map((r) => times(r.iceberg.wallMs / r.plain.wallMs)).join(" ")}; ${med((r) => r.versions)} metadata versions for ${COMMITS} commits`,
      },
      {
        case: `Iceberg ${mode}: CPU per commit (TARGET ≤ 1.20×)`,
        median_ms: med((r) => r.iceberg.cpuMs) / COMMITS,
        ratio: times(med((r) => r.iceberg.cpuMs / r.plain.cpuMs)),
        note: `rounds ${runs.map((r) => times(r.iceberg.cpuMs / r.plain.cpuMs)).join(" ")}; first tenth of the history ${times(med((r) => cpuRatio(r, false)))} (plain ${tenthMs(runs, "plain", false)}, Iceberg ${tenthMs(runs, "iceberg", false)} ms per commit), last tenth ${times(med((r) => cpuRatio(r, true)))} (plain ${tenthMs(runs, "plain", true)}, Iceberg ${tenthMs(runs, "iceberg", true)}); metadata JSON ${(med((r) => r.jsonBytes) / 1024).toFixed(0)} KB at the end`,
      },
      {
        case: `Iceberg ${mode}: commit latency`,
        median_ms: med((r) => median(r.iceberg.latencies)),
        ratio: times(med((r) => median(r.iceberg.latencies) / median(r.plain.latencies))),
        note: `last tenth: ${times(med((r) => median(tenth(r.iceberg.latencies, true)) / median(tenth(r.plain.latencies, true))))}`,
      },
    );
  }
  printTable(
    `Iceberg metadata per commit (Node storage, medians of ${ROUNDS} rounds, each after ${WARMUP} unmeasured commits per side)`,
    rows,
  );
}
