// Iceberg metadata (issue 19): the cost of writing it on every commit. A small commit (10 rows, a Parquet
// data file) on Node storage, with and without `iceberg` on the table: each commit then also writes a
// manifest and a manifest list, and each metadata version a vN.metadata.json and version-hint.text.
// Goal: metadata ≤ 20% of a small commit, i.e. ≤ 1.20× the plain commit's whole-run cost per commit.
// Both modes: background (the default of `iceberg: true`: commits within 20 ms to 1 s share a metadata
// version) and synchronous (`background: false`: a version before each commit returns).
// Each side runs in a process of its own (bench/iceberg-side.ts), so that its CPU time (process.cpuUsage:
// every thread, the file system's worker threads too) holds its own work and nothing else — a background
// export runs when its timer fires, which in one shared process could fall in the other side's block.
// Commits go in blocks (AVA_BENCH_ICEBERG_BLOCK, default 10) alternating between the sides, the other side
// stopped (SIGSTOP) meanwhile, and which side goes first alternates from round to round, so that machine
// noise and any order effect hit both alike. The metadata is made current once at the end (counted): in
// between, background mode writes versions on its own schedule, as it does in an app. Wall time is
// load-sensitive on a shared machine, so CPU time is shown beside it.
// Before the measured commits, each side's process does the same work on a throwaway table
// (AVA_BENCH_ICEBERG_WARMUP commits, default 200), unmeasured: a process's first few hundred commits are
// JIT warm-up (5–8 ms each instead of ~1.5), which swamped the ratio of short runs.
// AVA_BENCH_ICEBERG_COMMITS sets how many measured commits of each (default 300; AVA_BENCH_ICEBERG_COMMITS=3000
// shows what grows with the history), AVA_BENCH_ICEBERG_ROUNDS how many rounds of every mode (default 3):
// the table gives medians of the rounds' ratios, and each round's ratio beside them.
import { type ChildProcess, fork } from "node:child_process";
import { join } from "node:path";
import type { SideReport, SideRequest } from "./iceberg-side.js";
import { median, printTable } from "./lib.js";

const COMMITS = Number(process.env.AVA_BENCH_ICEBERG_COMMITS ?? 300);
const BLOCK = Number(process.env.AVA_BENCH_ICEBERG_BLOCK ?? 10);
const ROUNDS = Number(process.env.AVA_BENCH_ICEBERG_ROUNDS ?? 3);
const WARMUP = Number(process.env.AVA_BENCH_ICEBERG_WARMUP ?? 200);

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

/** A side's process (bench/iceberg-side.ts): asked for a block of commits or to finish, it reports. */
class SideProcess {
  readonly #child: ChildProcess;
  readonly #reports: SideReport[] = [];
  #waiting: ((report: SideReport) => void) | undefined;
  readonly #exited: Promise<void>;

  constructor(mode: "plain" | "background" | "synchronous", fsync: boolean) {
    this.#child = fork(
      join(import.meta.dirname, "iceberg-side.ts"),
      [mode, fsync ? "on" : "off", String(WARMUP), String(BLOCK)],
      { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] },
    );
    this.#child.on("message", (report: SideReport) => {
      const waiting = this.#waiting;
      this.#waiting = undefined;
      if (waiting) waiting(report);
      else this.#reports.push(report);
    });
    this.#exited = new Promise((resolve, reject) =>
      this.#child.on("exit", (code) =>
        code === 0 ? resolve() : reject(new Error(`iceberg bench side (${mode}) exited with ${code}`)),
      ),
    );
    this.#exited.catch(() => {});
  }

  #next(): Promise<SideReport> {
    const ready = this.#reports.shift();
    if (ready) return Promise.resolve(ready);
    return Promise.race([
      new Promise<SideReport>((resolve) => {
        this.#waiting = resolve;
      }),
      this.#exited.then(() => Promise.reject(new Error("iceberg bench side exited early"))),
    ]);
  }

  async ready(): Promise<void> {
    await this.#next();
  }

  /** Runs while the other side is stopped, so that its background work cannot share the machine with it. */
  async ask<R extends SideReport>(request: SideRequest): Promise<R> {
    this.#child.kill("SIGCONT");
    this.#child.send(request);
    const report = (await this.#next()) as R;
    if (request.op === "block") this.#child.kill("SIGSTOP");
    else await this.#exited;
    return report;
  }

  pause(): void {
    this.#child.kill("SIGSTOP");
  }
}

/** `COMMITS` commits of each side in alternating blocks (`icebergFirst`: Iceberg's block first). */
async function compare(fsync: boolean, background: boolean, icebergFirst: boolean): Promise<Round> {
  const procs = [
    new SideProcess("plain", fsync),
    new SideProcess(background ? "background" : "synchronous", fsync),
  ];
  for (const p of procs) await p.ready(); // each after its warm-up
  for (const p of procs) p.pause();
  const side = (): Side => ({ latencies: [], wallMs: 0, cpuMs: 0, blockCpuMs: [] });
  const sides: [Side, Side] = [side(), side()];
  const order = icebergFirst ? [1, 0] : [0, 1];
  for (let i = 0; i < COMMITS; i += BLOCK)
    for (const k of order) {
      const block = await procs[k]!.ask<Extract<SideReport, { op: "block" }>>({ op: "block" });
      sides[k]!.latencies.push(...block.latencies);
      sides[k]!.wallMs += block.wallMs;
      sides[k]!.cpuMs += block.cpuMs;
      sides[k]!.blockCpuMs.push(block.cpuMs);
    }
  // What is left (a background export still waiting) is the side's too.
  let metadata = { versions: 0, jsonBytes: 0 };
  for (const k of order) {
    const end = await procs[k]!.ask<Extract<SideReport, { op: "finish" }>>({ op: "finish" });
    sides[k]!.wallMs += end.wallMs;
    sides[k]!.cpuMs += end.cpuMs;
    if (k === 1) metadata = end;
  }
  return { plain: sides[0], iceberg: sides[1], versions: metadata.versions, jsonBytes: metadata.jsonBytes };
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
    for (const m of modes) rounds.get(m)!.push(await compare(m.fsync, m.background, r % 2 === 1));
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
