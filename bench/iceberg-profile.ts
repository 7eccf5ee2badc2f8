// A profile of small commits with Iceberg metadata (issue 19), for splitting what the metadata costs a
// commit. Usage: node --import tsx bench/iceberg-profile.ts [plain|background|synchronous] [OUT.cpuprofile]
// AVA_PROFILE_WARMUP commits (default 1000) are made on a throwaway table first, unprofiled (JIT warm-up),
// then AVA_PROFILE_COMMITS (default 1000) profiled ones, fsync on (AVA_PROFILE_FSYNC=0: off). Prints the
// CPU time per commit; with OUT, the profile of the measured commits (through node:inspector) goes there,
// and `node --import tsx bench/iceberg-profile-split.ts OUT` splits it by where the time goes.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ava from "../src/index.js";
import { makeBatch } from "./data.js";
import { openBenchTable } from "./iceberg-table.js";

const mode = process.argv[2] ?? "background";
const out = process.argv[3];
const WARMUP = Number(process.env.AVA_PROFILE_WARMUP ?? 1000);
const COMMITS = Number(process.env.AVA_PROFILE_COMMITS ?? 1000);
const fsync = process.env.AVA_PROFILE_FSYNC !== "0";
const rows = makeBatch(0, 10);

/** Every table of the run is made in one folder, deleted at the end. */
const folder = await mkdtemp(join(tmpdir(), "ava-iceberg-profile-"));
const open = () => openBenchTable(mode, fsync, folder);

async function commits(n: number) {
  // Deleted at the end only: deleting files right before measured commits makes their file creations
  // dearer (see bench/iceberg-side.ts).
  const { ns } = await open();
  for (let i = 0; i < n; i++) await ns.points.append(rows);
  if (mode !== "plain") await ava.exportIceberg(ns.storage, "bench", "points");
}

await commits(WARMUP);
const session = new Session();
if (out) {
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 200 });
  await session.post("Profiler.start");
}
const cpu = process.cpuUsage();
const t0 = performance.now();
await commits(COMMITS);
const used = process.cpuUsage(cpu);
const wall = performance.now() - t0;
if (out) {
  const { profile } = await session.post("Profiler.stop");
  await writeFile(out, JSON.stringify(profile));
}
console.log(
  `${mode}, fsync ${fsync ? "on" : "off"}: ${COMMITS} commits, CPU ${((used.user + used.system) / 1000 / COMMITS).toFixed(3)} ms ` +
    `(user ${(used.user / 1000 / COMMITS).toFixed(3)}, system ${(used.system / 1000 / COMMITS).toFixed(3)}) and wall ${(wall / COMMITS).toFixed(3)} ms per commit`,
);
await rm(folder, { recursive: true, force: true });
