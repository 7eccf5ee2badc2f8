import { memoryStorage } from "../src/node.js";
import { removeTemps, startServer } from "./live.js";
import { liveRounds, streamTimed } from "./live-data.js";
async function main() {
  const data = liveRounds(40);
  const mode = (process.argv[2] ?? "discard") as "discard";
  for (let i = 0; i < 4; i++) {
    (globalThis as any).__XX = i % 2 === 1;
    const server = await startServer(mode);
    const c = process.cpuUsage();
    const t = await streamTimed(server.url, memoryStorage(), data);
    const u = process.cpuUsage(c);
    console.log(
      (globalThis as any).__XX ? "before" : "after ",
      "ms",
      t.ms.toFixed(0),
      "Mpts/s",
      (10e3 / t.ms).toFixed(2),
      "sender cpu ms",
      ((u.user + u.system) / 1000).toFixed(0),
    );
    await server.stop();
  }
  await removeTemps();
}
void main();
