// Profiling harness (not a bench case): the live stream's sending process, into a server (bench/live-server.ts,
// in its own process) that discards or ingests, for `node --cpu-prof`. Prints the sender's CPU per million points.
// Usage: node [--cpu-prof] --import tsx bench/profile-sender.ts [rounds] [memory|node] [discard|ingest]
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryStorage, nodeStorage } from "../src/node.js";
import { removeTemps, startServer } from "./live.js";
import { BATCH, liveRounds, streamTimed } from "./live-data.js";

const rounds = Number(process.argv[2] ?? 20);
const outbox = process.argv[3] ?? "memory";
const mode = (process.argv[4] ?? "discard") as "discard" | "ingest";
const data = liveRounds(rounds);
const server = await startServer(mode);
try {
  for (let rep = 0; rep < 3; rep++) {
    const root = await mkdtemp(join(tmpdir(), "ava-prof-sender-"));
    const storage = outbox === "node" ? nodeStorage({ root }) : memoryStorage();
    const cpu = process.cpuUsage();
    const { ms } = await streamTimed(server.url, storage, data);
    const used = process.cpuUsage(cpu);
    const perM = (x: number) => (x / ((rounds * BATCH) / 1e6)).toFixed(0);
    console.log(
      `${outbox} outbox into ${mode}: ${((rounds * BATCH) / ms / 1e3).toFixed(2)}M points/s; sender CPU ${perM((used.user + used.system) / 1000)} ms per 1M points`,
    );
    await rm(root, { recursive: true, force: true });
  }
} finally {
  await server.stop();
  await removeTemps(); // the server's table folder
}
