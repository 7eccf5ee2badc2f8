// Iceberg metadata (issue 19): the cost of writing it on every commit. A small commit (10 rows, a Parquet
// data file) on Node storage, with and without `iceberg: true` on the table: each commit then also writes a
// manifest, a manifest list, vN.metadata.json and version-hint.text. Goal: ≤ 1.2× the plain commit.
// Commits are interleaved (plain, iceberg, plain, …) so that machine noise hits both alike; the metadata
// JSON grows with the snapshots it lists, so the cost is also shown for the last tenth of the run.
// AVA_BENCH_ICEBERG_COMMITS sets how many commits of each (default 300).
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ava from "../src/index.js";
import { nodeStorage } from "../src/node.js";
import { makeBatch, schema } from "./data.js";
import { median, printTable, ratio } from "./lib.js";

const COMMITS = Number(process.env.AVA_BENCH_ICEBERG_COMMITS ?? 300);

async function open(iceberg: boolean, fsync: boolean) {
  const root = await mkdtemp(join(tmpdir(), "ava-bench-iceberg-"));
  const def = ava.defineNamespace({
    name: "bench",
    tables: { points: ava.table({ schema, iceberg }) },
  });
  const ns = await def.open({ storage: nodeStorage({ root, fsync }) });
  await ns.push();
  return ns;
}

async function compare(fsync: boolean): Promise<{ plain: number[]; iceberg: number[] }> {
  const [plain, withMetadata] = [await open(false, fsync), await open(true, fsync)];
  const rows = makeBatch(0, 10);
  const out = { plain: [] as number[], iceberg: [] as number[] };
  for (let i = 0; i < COMMITS; i++) {
    for (const [ns, times] of [
      [plain, out.plain],
      [withMetadata, out.iceberg],
    ] as const) {
      const t0 = performance.now();
      await ns.points.append(rows);
      times.push(performance.now() - t0);
    }
  }
  return out;
}

export async function benchIceberg(): Promise<void> {
  const rows = [];
  for (const fsync of [true, false]) {
    const { plain, iceberg } = await compare(fsync);
    const tail = (xs: number[]) => xs.slice(Math.floor(xs.length * 0.9));
    const note = `fsync ${fsync ? "on" : "off"}`;
    rows.push(
      { case: `small commit (10 rows), ${note}`, median_ms: median(plain), note: `${COMMITS} commits` },
      {
        case: `… with Iceberg metadata, ${note}`,
        median_ms: median(iceberg),
        ratio: ratio(median(iceberg), median(plain)),
        note: "goal ≤ 1.20×",
      },
      {
        case: `… last tenth (≈${COMMITS} snapshots listed), ${note}`,
        median_ms: median(tail(iceberg)),
        ratio: ratio(median(tail(iceberg)), median(tail(plain))),
        note: "the metadata JSON grows with the snapshots",
      },
    );
  }
  printTable("Iceberg metadata per commit (Node storage)", rows);
}
