// temporary: live stream (memory outbox) into a server process; sender/server CPU per 1M points
import { memoryStorage } from "../src/node.js";
import { startServer } from "./live.js";
import { BATCH, batchFiles, fetchTimed, liveRounds, streamTimed } from "./live-data.js";
const rounds = Number(process.env.ROUNDS ?? 16);
const mode = (process.argv[2] ?? "ingest") as "ingest";
const data = liveRounds(rounds);
const files = await batchFiles(data);
const pts = (rounds * BATCH) / 1e6;
for (let rep = 0; rep < Number(process.env.REPS ?? 3); rep++) {
  for (const which of ["floor", "live"]) {
    const server = await startServer(mode);
    await fetchTimed(server.url, [files[0]!]);
    const s0 = await server.cpuMs();
    const cpu = process.cpuUsage();
    const t = which === "floor" ? await fetchTimed(server.url, files) : await streamTimed(server.url, memoryStorage(), data);
    const u = process.cpuUsage(cpu);
    const s = (await server.cpuMs()) - s0;
    await server.stop();
    console.log(mode, which, ((pts / t.ms) * 1e3).toFixed(2), "M/s; sender", ((u.user + u.system) / 1000 / pts).toFixed(0), "ms/1M; server", (s / pts).toFixed(0), "ms/1M");
  }
}
