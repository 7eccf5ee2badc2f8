// Profiling harness (not a bench case): the ingest server in a process of its own (bench/live-server.ts,
// under `node --cpu-prof`), fed the live stream's batch files through node:http one at a time — the
// node:http-floor case of `npm run bench -- live`. Prints the server's CPU per million points.
// Usage: node --import tsx bench/profile-server.ts [rounds] [PROFILE_DIR] [ingest|discard]
import { nodeHttpPost } from "../src/avro/live/node-http-post.js";
import { removeTemps, startServer } from "./live.js";
import { BATCH, batchFiles, liveRounds } from "./live-data.js";

const rounds = Number(process.argv[2] ?? 24);
const dir = process.argv[3];
const mode = (process.argv[4] ?? "ingest") as "ingest" | "discard";
if (dir) process.env.AVA_BENCH_SERVER_PROFILE = dir;
const files = await batchFiles(liveRounds(rounds));
const server = await startServer(mode);
const target = new URL(server.url);
const never = new AbortController().signal;
const post = async (body: Uint8Array) => {
  const headers = { "content-type": "application/avro", "idempotency-key": crypto.randomUUID() };
  const { status, text } = await nodeHttpPost(target, body, headers, never);
  if (status !== 200) throw new Error(`${status}: ${text}`);
};
try {
  for (const f of files.slice(0, 2)) await post(f); // warm-up
  for (let rep = 0; rep < 3; rep++) {
    const cpu = await server.cpuMs();
    const mine = process.cpuUsage();
    const t0 = performance.now();
    for (const f of files) await post(f);
    const ms = performance.now() - t0;
    const used = process.cpuUsage(mine);
    const perM = (x: number) => (x / ((rounds * BATCH) / 1e6)).toFixed(0);
    console.log(
      `${mode}: ${((rounds * BATCH) / ms / 1e3).toFixed(2)}M points/s; CPU per 1M points: server ${perM((await server.cpuMs()) - cpu)} ms, sender ${perM((used.user + used.system) / 1000)} ms`,
    );
  }
} finally {
  await server.stop();
  await removeTemps(); // the server's table folder
}
