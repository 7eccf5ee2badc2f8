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

async function open(iceberg: boolean | { background: true }, fsync: boolean) {
  const root = await mkdtemp(join(tmpdir(), "ava-bench-iceberg-"));
  const def = ava.defineNamespace({
    name: "bench",
    tables: { points: ava.table({ schema, iceberg }) },
  });
  const ns = await def.open({ storage: nodeStorage({ root, fsync }) });
  await ns.push();
  return ns;
}

async function compare(
  fsync: boolean,
  background = false,
): Promise<{ plain: number[]; iceberg: number[]; totals: [number, number] }> {
  const [plain, withMetadata] = [
    await open(false, fsync),
    await open(background ? { background } : true, fsync),
  ];
  const rows = makeBatch(0, 10);
  const out = { plain: [] as number[], iceberg: [] as number[], totals: [0, 0] as [number, number] };
  // Blocks of commits, alternating between the tables (background metadata of one block must not slow the
  // other table's commits down); a block's total includes waiting for its metadata to be written.
  const BLOCK = background ? 10 : 1;
  for (let i = 0; i < COMMITS; i += BLOCK) {
    for (const [k, ns, times] of [
      [0, plain, out.plain],
      [1, withMetadata, out.iceberg],
    ] as const) {
      const start = performance.now();
      for (let j = 0; j < BLOCK; j++) {
        const t0 = performance.now();
        await ns.points.append(rows);
        times.push(performance.now() - t0);
      }
      if (k === 1 && background) await ava.exportIceberg(ns.storage, "bench", "points");
      out.totals[k] += performance.now() - start;
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
  for (const fsync of [true, false]) {
    const { plain, iceberg, totals } = await compare(fsync, true);
    const note = `fsync ${fsync ? "on" : "off"}`;
    rows.push(
      {
        case: `… metadata in the background (commit latency), ${note}`,
        median_ms: median(iceberg),
        ratio: ratio(median(iceberg), median(plain)),
        note: "the commit returns before its metadata is written",
      },
      {
        case: `… in the background, whole run per commit, ${note}`,
        median_ms: totals[1] / COMMITS,
        ratio: ratio(totals[1], totals[0]),
        note: "blocks of 10 commits, each block's metadata awaited",
      },
    );
  }
  printTable("Iceberg metadata per commit (Node storage)", rows);
}
