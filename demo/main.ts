// A first demo: typed Parquet tables in the page. Appends synthetic readings, then summarises the current
// snapshot per channel. (Memory storage for now; the offline dashboard moves to browser storage.)
import * as A from "apache-arrow";
import * as ava from "../src/index.js";

const Telemetry = ava.defineNamespace({
  name: "telemetry",
  tables: {
    points: ava.table({
      schema: new A.Schema([
        new A.Field("channel", new A.Utf8(), false),
        new A.Field("ts", new A.Int64(), false),
        new A.Field("value", new A.Float64(), false),
      ]),
    }),
  },
});

const ns = await Telemetry.open({ storage: ava.memoryStorage() });
await ns.push();
const status = document.querySelector("#status")!;
const summary = document.querySelector("#summary")!;
let next = 0;

async function appendBatch(): Promise<void> {
  const n = 10_000;
  const channels = ["engine.temp", "engine.rpm", "cabin.temp"];
  const rows = new A.Table({
    channel: A.vectorFromArray(
      Array.from({ length: n }, (_, i) => channels[i % 3]!),
      new A.Utf8(),
    ),
    ts: A.makeVector(BigInt64Array.from({ length: n }, (_, i) => BigInt(next + i) * 1_000_000n)),
    value: A.makeVector(Float64Array.from({ length: n }, (_, i) => Math.sin((next + i) / 500) * 50 + 50)),
  });
  next += n;
  const t0 = performance.now();
  const res = await ns.points.append(rows);
  status.textContent = `snapshot #${res.snapshot.sequenceNumber}: ${res.rowCount} rows in ${(performance.now() - t0).toFixed(1)} ms`;
  await render();
}

async function render(): Promise<void> {
  const stats = new Map<string, { n: number; sum: number }>();
  for await (const batch of ns.points.scan({ columns: ["channel", "value"] }).batches()) {
    const channel = batch.getChild("channel")!;
    const value = batch.getChild("value")!;
    for (let i = 0; i < batch.numRows; i++) {
      const s = stats.get(channel.get(i)) ?? { n: 0, sum: 0 };
      s.n++;
      s.sum += value.get(i);
      stats.set(channel.get(i), s);
    }
  }
  summary.innerHTML = `<tr><th>channel</th><th>points</th><th>mean</th></tr>${[...stats]
    .map(([c, s]) => `<tr><td>${c}</td><td>${s.n}</td><td>${(s.sum / s.n).toFixed(2)}</td></tr>`)
    .join("")}`;
}

document.querySelector("#append")!.addEventListener("click", () => void appendBatch());
await appendBatch();
