// A sequential appender of 10-row inlined commits with fsync off, for `node --cpu-prof`: what the ordinary
// commit's CPU goes to. AVA_PROFILE_COMMITS sets how many (default 3,000); AVA_PROFILE_FLUSH=0 turns the
// background flush off, so that the profile holds ordinary commits (and checkpoints) only.
//   npx esbuild bench/commit-profile.ts --bundle --platform=node --format=esm --packages=external \
//     --keep-names --outfile=node_modules/.cache/commit-profile.mjs && node --cpu-prof node_modules/.cache/commit-profile.mjs
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ava from "../src/index.js";
import { nodeStorage } from "../src/node.js";
import { makeBatch, schema } from "./data.js";
import { latencyProfile, median } from "./lib.js";

/**
 * CPU time (µs) of this process's main thread alone (Linux: /proc), without its worker threads and the
 * thread pool: what the appender's own thread spends, which a loaded machine inflates far less than wall time.
 */
function mainThreadCpuMicros(): number | undefined {
  const path = `/proc/self/task/${process.pid}/stat`;
  if (!existsSync(path)) return undefined;
  // Fields after the command's closing parenthesis; utime and stime are the 12th and 13th, in clock ticks.
  const fields = readFileSync(path, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000; // 100 ticks a second on Linux
}

const COMMITS = Number(process.env.AVA_PROFILE_COMMITS ?? 3_000);
const FSYNC = process.env.AVA_PROFILE_FSYNC === "1";
const inline = process.env.AVA_PROFILE_FLUSH === "0" ? { flush: false as const } : true;
const Def = ava.defineNamespace({ name: "bench", tables: { points: ava.table({ schema, inline }) } });

const root = await mkdtemp(join(tmpdir(), "ava-commit-profile-"));
const ns = await Def.open({ storage: nodeStorage({ root, fsync: FSYNC }) });
await ns.push();
const rows = makeBatch(0, 10);
const latencies: number[] = [];
/** Each commit's [start, end] in µs of the monotonic clock that V8's profiler stamps its samples with. */
const windows: [number, number][] = [];
const t0 = performance.now();
// CPU time of the process (all threads: the thread pool's syscalls too), which load on a shared machine
// inflates far less than wall time: the number to compare between runs there.
const cpu0 = process.cpuUsage();
const main0 = mainThreadCpuMicros();
for (let i = 0; i < COMMITS; i++) {
  const t = performance.now();
  const h = process.hrtime.bigint();
  await ns.points.append(rows);
  windows.push([Number(h / 1000n), Number(process.hrtime.bigint() / 1000n)]);
  latencies.push(performance.now() - t);
}
const wall = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const main1 = mainThreadCpuMicros();
const mainCpu =
  main0 === undefined || main1 === undefined
    ? ""
    : `, main thread ${Math.round((main1 - main0) / COMMITS)} µs`;
console.log(
  `${COMMITS} commits, fsync ${FSYNC ? "on" : "off"}: CPU ${Math.round(cpu.user / COMMITS)} µs user + ` +
    `${Math.round(cpu.system / COMMITS)} µs system per commit${mainCpu}; median ${median(latencies).toFixed(3)} ms, ` +
    `${Math.round((COMMITS / wall) * 1000)} commits/s by wall time; ${latencyProfile(latencies, wall)}`,
);
await ns.points.inlineFlush.idle();
// With AVA_PROFILE_WINDOWS=file, the commits' windows, to keep only the samples taken inside ordinary ones.
if (process.env.AVA_PROFILE_WINDOWS) writeFileSync(process.env.AVA_PROFILE_WINDOWS, JSON.stringify(windows));
