// Iceberg metadata (issue 19): the cost of writing it on every commit. A small commit (10 rows, a Parquet
// data file) on Node storage, with and without `iceberg` on the table: each commit then also writes a
// manifest and a manifest list, and each metadata version a vN.metadata.json and version-hint.text.
// Goal: metadata ≤ 20% of a small commit, i.e. ≤ 1.20× the plain commit's whole-run cost per commit.
// Both modes: background (the default of `iceberg: true`: commits within 50 ms to 1 s share a metadata
// version) and synchronous (`background: false`: a version before each commit returns). Beside them, the
// floor: the same plain commits, each followed by writing the two files every Iceberg snapshot of an append
// needs (a manifest and a manifest list, their usual sizes, nothing encoded; bench/iceberg-side.ts) — what
// any per-commit export costs at least on this machine, so the ratios above it read as the export's own.
// Each side runs in a process of its own (bench/iceberg-side.ts), both at the same time, so that each one's
// CPU time (process.cpuUsage: every thread, the file system's worker threads too) holds its own work and
// nothing else — a background export runs when its timer fires, which in one shared process could fall in
// the other side's measurement — and machine noise hits both alike. The metadata is made current once at
// the end (counted): in between, background mode writes versions on its own schedule, as in an app. Wall
// time is load-sensitive on a shared machine (and the sides share its 2 cores), so CPU time is shown beside
// it; rounds alternate the modes so that a stretch of noise hits them alike.
// Before the measured commits, each side's process does the same work on a throwaway table
// (AVA_BENCH_ICEBERG_WARMUP commits, default 1000), unmeasured: a process's first thousand or so commits are
// JIT warm-up (5–8 ms each instead of ~1.5), which swamped the ratio of short runs.
// AVA_BENCH_ICEBERG_COMMITS sets how many measured commits of each (default 300; AVA_BENCH_ICEBERG_COMMITS=3000
// shows what grows with the history), AVA_BENCH_ICEBERG_ROUNDS how many rounds of every mode (default 3):
// the table gives medians of the rounds' ratios, and each round's ratio beside them. CPU is sampled every
// AVA_BENCH_ICEBERG_BLOCK commits (default 10) to compare the history's first and last tenth.
// AVA_BENCH_ICEBERG_RETAIN=N: both sides expire all but the newest N snapshots after each block (as an app
// running maintain() with a retention does), so the metadata lists at most N + a block of snapshots and
// expired snapshots' metadata files are deleted: what an export costs with a bounded history.
// AVA_BENCH_ICEBERG_MIN_DELAY_MS sets a background export's shortest wait (default 50 ms, iceberg/lanes.ts).
// The filesystem matters (bench/filesystem.ts; the title names it). This VM's root ext4 has no journal, so
// each file creation there skips every inode freed in the last 60–300 s in its block group: right after
// other jobs delete thousands of files, a creation cost 200–400 µs of CPU (perf: recently_deleted()),
// against 20–30 µs on a journaled ext4 or here once the deletions have aged. The Iceberg side creates two
// files per commit more than the plain side (a manifest and a manifest list, the least a snapshot can
// have), so a run started right after a deleting job shows a higher ratio; in a quiet run (perf -a)
// creations were under 1% of the CPU. `TMPDIR=/a/folder npm run bench` runs the bench on another filesystem.
// Every side makes its tables in one folder of the run, deleted only after the last round (see
// bench/iceberg-side.ts: deleting files right before measured commits made their file creations dearer).
import { fork } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeFilesystem } from "./filesystem.js";
import type { SideReport, SideRequest } from "./iceberg-side.js";
import type { IcebergBenchMode } from "./iceberg-table.js";
import { median, printTable } from "./lib.js";

const COMMITS = Number(process.env.AVA_BENCH_ICEBERG_COMMITS ?? 300);
const BLOCK = Number(process.env.AVA_BENCH_ICEBERG_BLOCK ?? 10);
const ROUNDS = Number(process.env.AVA_BENCH_ICEBERG_ROUNDS ?? 3);
const WARMUP = Number(process.env.AVA_BENCH_ICEBERG_WARMUP ?? 1000);
const RETAIN = Number(process.env.AVA_BENCH_ICEBERG_RETAIN ?? 0);

interface Round {
  plain: Done;
  iceberg: Done;
  versions: number;
  /** The newest metadata JSON's size: it lists every snapshot, and each version writes it whole. */
  jsonBytes: number;
}

type Done = Extract<SideReport, { op: "done" }>;

/** A side's process (bench/iceberg-side.ts), warmed up; `run` gives its report. */
async function startSide(mode: IcebergBenchMode, fsync: boolean, folder: string) {
  const child = fork(
    join(import.meta.dirname, "iceberg-side.ts"),
    [mode, fsync ? "on" : "off", String(WARMUP), String(BLOCK), String(RETAIN), folder],
    { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] },
  );
  const reports: SideReport[] = [];
  let waiting: ((r: SideReport) => void) | undefined;
  child.on("message", (r: SideReport) => {
    const resolve = waiting;
    waiting = undefined;
    if (resolve) resolve(r);
    else reports.push(r);
  });
  const exited = new Promise<never>((_, reject) =>
    child.on("exit", (code) => reject(new Error(`iceberg bench side (${mode}) exited with ${code}`))),
  );
  exited.catch(() => {});
  const next = () =>
    Promise.race([
      reports.length > 0
        ? Promise.resolve(reports.shift()!)
        : new Promise<SideReport>((resolve) => {
            waiting = resolve;
          }),
      exited,
    ]);
  await next(); // ready: warmed up
  return {
    run: async (commits: number): Promise<Done> => {
      child.send({ commits } satisfies SideRequest);
      return (await next()) as Done;
    },
  };
}

/**
 * `COMMITS` commits on each side, both sides at once: each in its own process, so each one's CPU time is
 * its own work wherever its background exports fall, and machine noise hits both alike.
 */
async function compare(fsync: boolean, mode: Measured, folder: string): Promise<Round> {
  const sides = await Promise.all([startSide("plain", fsync, folder), startSide(mode, fsync, folder)]);
  const [plain, iceberg] = await Promise.all(sides.map((s) => s.run(COMMITS)));
  return { plain: plain!, iceberg: iceberg!, versions: iceberg!.versions, jsonBytes: iceberg!.jsonBytes };
}

/** What each round measures against the plain side (bench/iceberg-side.ts), in this order. */
const MEASURED = ["synchronous", "background", "floor"] as const;
type Measured = (typeof MEASURED)[number];

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
  // AVA_BENCH_ICEBERG_MODE=background (or synchronous, or floor) runs that mode alone;
  // AVA_BENCH_ICEBERG_FSYNC=on (or off) that fsync setting alone.
  const only = process.env.AVA_BENCH_ICEBERG_MODE;
  const onlyFsync = process.env.AVA_BENCH_ICEBERG_FSYNC;
  const modes = [true, false]
    .flatMap((fsync) => MEASURED.map((mode) => ({ fsync, mode })))
    .filter((m) => !only || only === m.mode)
    .filter((m) => !onlyFsync || onlyFsync === (m.fsync ? "on" : "off"));
  // Rounds go through every mode before the next round, so a stretch of machine noise hits them alike.
  const rounds = new Map(modes.map((m) => [m, [] as Round[]]));
  const folder = await mkdtemp(join(tmpdir(), "ava-bench-iceberg-"));
  const filesystem = describeFilesystem(folder);
  try {
    for (let r = 0; r < ROUNDS; r++)
      for (const m of modes) rounds.get(m)!.push(await compare(m.fsync, m.mode, folder));
  } finally {
    await rm(folder, { recursive: true, force: true, maxRetries: 3 });
  }
  const rows = [];
  for (const m of modes) {
    const runs = rounds.get(m)!;
    const fsync = `fsync ${m.fsync ? "on" : "off"}`;
    const med = (f: (r: Round) => number) => median(runs.map(f));
    const perCommit = (ms: number) => (ms / COMMITS).toFixed(2);
    // The plain side once per fsync setting: before the first mode measured against it.
    if (m.mode === "synchronous" || only)
      rows.push({
        case: `plain small commit (10 rows), ${fsync}`,
        median_ms: med((r) => median(r.plain.latencies)),
        note: `${COMMITS} commits × ${ROUNDS} rounds; whole run ${perCommit(med((r) => r.plain.wallMs))} ms, CPU ${perCommit(med((r) => r.plain.cpuMs))} ms per commit`,
      });
    if (m.mode === "floor") {
      rows.push({
        case: `floor (two files per commit, nothing encoded), ${fsync}: CPU per commit`,
        median_ms: med((r) => r.iceberg.cpuMs) / COMMITS,
        ratio: times(med((r) => r.iceberg.cpuMs / r.plain.cpuMs)),
        note: `rounds ${runs.map((r) => times(r.iceberg.cpuMs / r.plain.cpuMs)).join(" ")}; whole run ${times(med((r) => r.iceberg.wallMs / r.plain.wallMs))}`,
      });
      continue;
    }
    const mode = `${m.mode}, ${fsync}`;
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
        note: `rounds ${runs.map((r) => times(r.iceberg.cpuMs / r.plain.cpuMs)).join(" ")}; first tenth of the history ${times(med((r) => cpuRatio(r, false)))} (plain ${tenthMs(runs, "plain", false)}, Iceberg ${tenthMs(runs, "iceberg", false)} ms per commit), last tenth ${times(med((r) => cpuRatio(r, true)))} (plain ${tenthMs(runs, "plain", true)}, Iceberg ${tenthMs(runs, "iceberg", true)}); metadata JSON ${(med((r) => r.jsonBytes) / 1024).toFixed(0)} KB and ${med((r) => r.iceberg.metadataFiles)} metadata files at the end`,
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
    `Iceberg metadata per commit (Node storage on ${filesystem}, medians of ${ROUNDS} rounds, each after ${WARMUP} unmeasured commits per side${RETAIN > 0 ? `; the newest ${RETAIN} snapshots kept` : ""})`,
    rows,
  );
}
