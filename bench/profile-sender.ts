// Profiling harness (not a bench case): the live stream's sending process, into a server (bench/live-server.ts,
// in its own process) that discards or ingests, for `node --cpu-prof`. Each run gets a fresh server warmed by
// 8 batch files first (as bench/live.ts does) and a warm sender. Prints points/s and the CPU per million
// points of the sender and of the server. The quick way to rerun the sustained "into ingest" case.
// AVA_PROFILE_SENDER=FILE.cpuprofile: a CPU profile of the timed runs alone (no start-up, no data making,
// no warm-up), for the split of the sender's time per million points.
// AVA_PROFILE_SENDER_WARM=N: the unmeasured first run streams N batches (default 8); with N = rounds, the
// timed runs find the batch memory a whole run's burst touched (the steady state of a long-lived sender).
// Usage: node [--cpu-prof] --import tsx bench/profile-sender.ts [rounds] [memory|node] [discard|ingest] [runs]
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryStorage, nodeStorage } from "../src/node.js";
import { removeTemps, startServer } from "./live.js";
import { BATCH, batchFiles, fetchTimed, liveRounds, streamTimed } from "./live-data.js";

const rounds = Number(process.argv[2] ?? 20);
const outbox = process.argv[3] ?? "memory";
const mode = (process.argv[4] ?? "discard") as "discard" | "ingest";
const runs = Number(process.argv[5] ?? 3);
const warmRounds = Number(process.env.AVA_PROFILE_SENDER_WARM ?? 8);
const data = liveRounds(rounds);
const warmUp = await batchFiles(data.slice(0, 8));
const profileTo = process.env.AVA_PROFILE_SENDER;
const session = profileTo ? new Session() : undefined;
if (session) {
  session.connect();
  await session.post("Profiler.enable");
}
try {
  for (let rep = -1; rep < runs; rep++) {
    const server = await startServer(mode);
    const root = await mkdtemp(join(tmpdir(), "ava-prof-sender-"));
    try {
      await fetchTimed(server.url, warmUp);
      const storage = outbox === "node" ? nodeStorage({ root }) : memoryStorage();
      const serverCpu = await server.cpuMs();
      if (rep === 0) await session?.post("Profiler.start");
      const cpu = process.cpuUsage();
      // The first run streams 8 batches unmeasured: the sender's JIT warms up as the server's did.
      const { ms } = await streamTimed(server.url, storage, rep < 0 ? data.slice(0, warmRounds) : data);
      if (rep < 0) continue;
      const used = process.cpuUsage(cpu);
      const perM = (x: number) => (x / ((rounds * BATCH) / 1e6)).toFixed(0);
      console.log(
        `${outbox} outbox into ${mode}: ${((rounds * BATCH) / ms / 1e3).toFixed(2)}M points/s; CPU per 1M points: sender ${perM((used.user + used.system) / 1000)} ms, server ${perM((await server.cpuMs()) - serverCpu)} ms`,
      );
    } finally {
      await server.stop();
      await rm(root, { recursive: true, force: true });
    }
  }
  if (session && profileTo) {
    const { profile } = await session.post("Profiler.stop");
    await writeFile(profileTo, JSON.stringify(profile));
  }
} finally {
  await removeTemps(); // the servers' table folders
}
