// One side of the iceberg bench, in a process of its own: a table with or without Iceberg metadata that
// makes small commits when the bench asks (bench/iceberg.ts). A process per side lets each side's CPU time
// (process.cpuUsage) hold exactly its own work — a background export runs whenever its timer fires, which in
// one shared process could land in the other side's measured block. The bench stops (SIGSTOP) the side
// whose turn it is not, so neither side's work runs on the other core meanwhile.
// argv: "plain" | "background" | "synchronous", fsync "on" | "off", warm-up commits, commits per block.
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ava from "../src/index.js";
import { nodeStorage } from "../src/node.js";
import { makeBatch, schema } from "./data.js";

export type SideRequest = { op: "block" } | { op: "finish" };

export type SideReport =
  | { op: "ready" }
  | { op: "block"; latencies: number[]; wallMs: number; cpuMs: number }
  | { op: "finish"; wallMs: number; cpuMs: number; versions: number; jsonBytes: number };

const [mode, fsyncArg, warmupArg, blockArg] = process.argv.slice(2);
const fsync = fsyncArg === "on";
const BLOCK = Number(blockArg);
const rows = makeBatch(0, 10);

async function open() {
  const root = await mkdtemp(join(tmpdir(), "ava-bench-iceberg-"));
  // `iceberg: true` is background metadata (the default); synchronous is asked for.
  const iceberg = mode === "plain" ? false : mode === "background" ? true : { background: false };
  const def = ava.defineNamespace({
    name: "bench",
    // Both sides write a data file per commit (Iceberg tables do not inline): the ratio is the metadata's cost.
    tables: { points: ava.table({ schema, iceberg, inline: false }) },
  });
  const ns = await def.open({ storage: nodeStorage({ root, fsync }) });
  await ns.push();
  return { ns, root };
}

/** Brings the metadata up to date (a background export may still be waiting): its cost is the side's. */
async function settle(ns: Awaited<ReturnType<typeof open>>["ns"]): Promise<void> {
  if (mode !== "plain") await ava.exportIceberg(ns.storage, "bench", "points");
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

// The same work unmeasured first: a process's first few hundred commits are JIT warm-up.
const warm = await open();
for (let i = 0; i < Number(warmupArg); i++) await warm.ns.points.append(rows);
await settle(warm.ns);
await rm(warm.root, { recursive: true, force: true });

const { ns, root } = await open();
let cpu = process.cpuUsage();
const send = (report: SideReport) => process.send!(report);

process.on("message", async (request: SideRequest) => {
  const start = performance.now();
  if (request.op === "block") {
    const latencies: number[] = [];
    for (let j = 0; j < BLOCK; j++) {
      const t0 = performance.now();
      await ns.points.append(rows);
      latencies.push(performance.now() - t0);
    }
    const wallMs = performance.now() - start;
    send({ op: "block", latencies, wallMs, cpuMs: cpuMs(cpu) });
    cpu = process.cpuUsage();
    return;
  }
  await settle(ns);
  const wallMs = performance.now() - start;
  const used = cpuMs(cpu);
  let versions = 0;
  let jsonBytes = 0;
  if (mode !== "plain") {
    const folder = join(root, "data/bench/points/metadata");
    const files = (await readdir(folder)).filter((f) => f.endsWith(".metadata.json"));
    const newest = Math.max(...files.map((f) => Number(f.slice(1, -".metadata.json".length))));
    versions = files.length;
    jsonBytes = (await stat(join(folder, `v${newest}.metadata.json`))).size;
  }
  await rm(root, { recursive: true, force: true });
  send({ op: "finish", wallMs, cpuMs: used, versions, jsonBytes });
  process.disconnect();
});
send({ op: "ready" });
