// Profiling harness (not a bench case): the ingest path in-process, for `node --cpu-prof`.
// Usage: node --import tsx bench/profile-ingest.ts [rounds] [snappy|null] [OUT.cpuprofile]: the timed
// loop alone is profiled (through node:inspector), not making the batch files.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AvroCodec } from "../src/avro.js";
import { BATCH, batchFiles, liveRounds } from "./live-data.js";
import { inProcessIngest } from "./live-ingest.js";

const rounds = Number(process.argv[2] ?? 16);
const codec = (process.argv[3] ?? "snappy") as AvroCodec;
const files = await batchFiles(liveRounds(rounds), codec);
const root = await mkdtemp(join(tmpdir(), "ava-prof-ingest-"));
const post = await inProcessIngest(root, files[0]!);
const out = process.argv[4];
const session = new Session();
if (out) {
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
}
for (let rep = 0; rep < 3; rep++) {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  for (const [i, body] of files.entries()) {
    const res = await post(body, `b-${rep}-${i}`);
    if (!res.ok) throw new Error(await res.text());
  }
  const ms = performance.now() - t0;
  const u = process.cpuUsage(cpu);
  const pts = rounds * BATCH;
  console.log(
    `${codec}: ${(pts / ms / 1e3).toFixed(2)}M points/s, CPU ${((u.user + u.system) / 1000 / (pts / 1e6)).toFixed(0)} ms/1M`,
  );
}
if (out) {
  const { profile } = await session.post("Profiler.stop");
  await writeFile(out, JSON.stringify(profile));
}
await rm(root, { recursive: true, force: true });
