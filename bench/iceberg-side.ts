// One side of the iceberg bench, in a process of its own: a table with or without Iceberg metadata that
// makes small commits when the bench asks (bench/iceberg.ts), both sides at the same time. A process per
// side lets each side's CPU time (process.cpuUsage) hold exactly its own work — a background export runs
// whenever its timer fires, which in one shared process could land in the other side's measurement.
// argv: "plain" | "background" | "synchronous" | "floor", fsync "on" | "off", warm-up commits, commits per
// block, snapshots retention keeps (0: every one; else both sides expire the older ones after each block),
// and the folder to make the tables in, which the bench deletes once every round has run.
//
// No table folder is deleted here, the warm-up's included: on a file system like this VM's (ext4 without a
// journal), creating a file skips every inode freed in the last ~30 s (ext4's recently_deleted(), which
// reads each one's inode), so deleting the warm-up's thousands of files right before the measured commits
// made every file they create dearer for the whole run: in 3 interleaved runs of each, 300 commits after
// the warm-up's deletion cost 2.2–2.8 ms CPU each on the plain side and 3.6–4.3 on the Iceberg side, kept
// 1.6–1.9 and 2.9–3.6. Both sides gain, so the ratio moves within the noise; the absolute costs are what an
// app that does not delete thousands of files before committing sees. What a side deletes while measured
// (its own metadata versions) still counts.
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import * as ava from "../src/index.js";
import { backgroundDelay } from "../src/iceberg/lanes.js";
import { expireTable } from "../src/table/expire.js";
import { makeBatch } from "./data.js";
import { openBenchTable } from "./iceberg-table.js";

/** Asks for that many commits, in blocks, then for the metadata made current. */
export interface SideRequest {
  commits: number;
}

export type SideReport =
  | { op: "ready" }
  | {
      op: "done";
      /** Each commit's latency (until append() returned). */
      latencies: number[];
      /** Whole-run wall and CPU time, the final export included. */
      wallMs: number;
      cpuMs: number;
      /** CPU time of each block of commits, to tell what grows with the history. */
      blockCpuMs: number[];
      versions: number;
      jsonBytes: number;
      /** Files in the metadata folder at the end (expired snapshots' files are deleted). */
      metadataFiles: number;
    };

const [mode, fsyncArg, warmupArg, blockArg, retainArg, folderArg] = process.argv.slice(2);
const fsync = fsyncArg === "on";
const BLOCK = Number(blockArg);
const RETAIN = Number(retainArg ?? 0);
const rows = makeBatch(0, 10);
// AVA_BENCH_ICEBERG_MIN_DELAY_MS: the shortest wait of a background export (lanes.ts), default 50.
if (process.env.AVA_BENCH_ICEBERG_MIN_DELAY_MS)
  backgroundDelay.minMs = Number(process.env.AVA_BENCH_ICEBERG_MIN_DELAY_MS);

const open = () => openBenchTable(mode!, fsync, folderArg!);

/**
 * "floor": the least any per-commit Iceberg export costs. An Iceberg snapshot needs a manifest list of its
 * own, and a commit that adds a file needs a manifest naming it (none can be shared: a reader of a snapshot
 * takes every live entry of every manifest its list names). So after each commit of a plain table this side writes
 * two files the size of a 10-row append's manifest and a manifest list (3.7 and 7.9 KB, the median of a
 * table's first 300), as the export does (no fsync, into the metadata folder), with nothing encoded: no
 * Avro, no metadata JSON, no Parquet field ids or column sizes.
 */
const MANIFEST = new Uint8Array(3_700);
const MANIFEST_LIST = new Uint8Array(7_900);
let floorFiles = 0;
async function writeFloorFiles(storage: ava.Storage): Promise<void> {
  const n = (floorFiles++).toString(36);
  const folder = "data/bench/points/metadata";
  await storage.files.write(`${folder}/${n}-m0.avro`, MANIFEST, { durable: false });
  await storage.files.write(`${folder}/snap-${n}.avro`, MANIFEST_LIST, { durable: false });
}

/** One commit of the side: an append, and in "floor" mode the files a snapshot needs at least. */
async function commit(ns: Awaited<ReturnType<typeof open>>["ns"]): Promise<void> {
  await ns.points.append(rows);
  if (mode === "floor") await writeFloorFiles(ns.storage);
}

/** Brings the metadata up to date (a background export may still be waiting): its cost is the side's. */
async function settle(ns: Awaited<ReturnType<typeof open>>["ns"]): Promise<void> {
  if (mode === "background" || mode === "synchronous") await ava.exportIceberg(ns.storage, "bench", "points");
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

// The same work unmeasured first: a process's first few hundred commits are JIT warm-up.
const warm = await open();
for (let i = 0; i < Number(warmupArg); i++) await commit(warm.ns);
await settle(warm.ns); // its folder stays until the bench ends (see the top)

const { ns, root } = await open();
const send = (report: SideReport) => process.send!(report);

process.once("message", async ({ commits }: SideRequest) => {
  const start = performance.now();
  const first = process.cpuUsage();
  const latencies: number[] = [];
  const blockCpuMs: number[] = [];
  for (let i = 0; i < commits; i += BLOCK) {
    const cpu = process.cpuUsage();
    for (let j = 0; j < BLOCK; j++) {
      const t0 = performance.now();
      await commit(ns);
      latencies.push(performance.now() - t0);
    }
    if (RETAIN > 0) await expireTable(ns.storage, "bench", "points", { maxAgeMs: 0, minSnapshots: RETAIN });
    blockCpuMs.push(cpuMs(cpu));
  }
  await settle(ns); // what is left (a background export still waiting) is the side's too
  const wallMs = performance.now() - start;
  const used = cpuMs(first);
  let versions = 0;
  let jsonBytes = 0;
  let metadataFiles = 0;
  if (mode === "background" || mode === "synchronous") {
    const folder = join(root, "data/bench/points/metadata");
    const all = await readdir(folder);
    metadataFiles = all.length;
    const files = all.filter((f) => f.endsWith(".metadata.json"));
    const newest = Math.max(...files.map((f) => Number(f.slice(1, -".metadata.json".length))));
    versions = newest; // the folder keeps the last 101 only
    jsonBytes = (await stat(join(folder, `v${newest}.metadata.json`))).size;
  }
  send({ op: "done", latencies, wallMs, cpuMs: used, blockCpuMs, versions, jsonBytes, metadataFiles });
  process.disconnect();
});
send({ op: "ready" });
