// SQL in Node over a 10M-row telemetry table (channel, ts, value) on nodeStorage: the first (cold) query,
// which brings the data files into DuckDB, then repeated GROUP BY channel queries. Beside it in the same
// run: the same rows in DuckDB's own storage (a native table, the floor), and a hand-written loop over
// the Arrow vectors of table.read().
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import * as A from "apache-arrow";
import * as ava from "../src/node.js";
import { open } from "../src/sql-node.js";
import { median, printTable, ratio, repeat, time } from "./lib.js";

const FILES = 10;
const ROWS_PER_FILE = 1_000_000;
const ROWS = FILES * ROWS_PER_FILE;
const CHANNELS = 100;
const RUNS = 5;
const GROUP_BY = `SELECT channel, count(*) AS n, avg(value) AS mean, min(ts) AS first, max(ts) AS last
  FROM telemetry GROUP BY channel ORDER BY channel`;

const schema = new A.Schema([
  new A.Field("channel", new A.Utf8(), false),
  new A.Field("ts", new A.Int64(), false),
  new A.Field("value", new A.Float64(), false),
]);

function rows(file: number): A.Table {
  const from = file * ROWS_PER_FILE;
  const names = Array.from({ length: CHANNELS }, (_, c) => `channel_${c}`);
  return A.tableFromArrays({
    channel: Array.from({ length: ROWS_PER_FILE }, (_, i) => names[(from + i) % CHANNELS]!),
    ts: BigInt64Array.from({ length: ROWS_PER_FILE }, (_, i) => BigInt(from + i)),
    value: Float64Array.from({ length: ROWS_PER_FILE }, (_, i) => Math.sin(from + i)),
  });
}

/** The hand-written peer: one pass over the Arrow vectors, grouping by channel in a Map. */
function loopGroupBy(table: A.Table): number {
  const groups = new Map<string, { n: number; sum: number; first: bigint; last: bigint }>();
  for (const batch of table.batches) {
    const channel = batch.getChild("channel")!;
    const ts = batch.getChild("ts")!.toArray() as BigInt64Array;
    const value = batch.getChild("value")!.toArray() as Float64Array;
    for (let i = 0; i < batch.numRows; i++) {
      const key = channel.get(i) as string;
      let g = groups.get(key);
      if (!g) {
        g = { n: 0, sum: 0, first: ts[i]!, last: ts[i]! };
        groups.set(key, g);
      }
      g.n++;
      g.sum += value[i]!;
      if (ts[i]! < g.first) g.first = ts[i]!;
      if (ts[i]! > g.last) g.last = ts[i]!;
    }
  }
  return groups.size;
}

export async function benchSql(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "ava-bench-sql-"));
  try {
    const Telemetry = ava.defineNamespace({
      name: "bench",
      tables: { telemetry: ava.table({ schema, rowLineage: false }) },
    });
    const ns = await Telemetry.open({ storage: ava.nodeStorage({ root: join(dir, "store"), fsync: false }) });
    await ns.push();
    for (let f = 0; f < FILES; f++) await ns.telemetry.append(rows(f));

    // Ours: the cold query brings the 10 files into DuckDB; the repeated ones load nothing.
    const db = await open(ns);
    const cold = await time(() => db.query(GROUP_BY));
    let ours: A.Table | undefined;
    const warm = await repeat(RUNS, async () => {
      ours = await db.query(GROUP_BY);
    });
    if (ours!.numRows !== CHANNELS || db.loads.files !== FILES) throw new Error("unexpected SQL result");
    await db.close();

    // DuckDB's own storage: the same rows in a native table of a database file.
    const files = (await ns.telemetry.scan().plan()).files.map((f) => `'${join(dir, "store", f.path)}'`);
    const instance = await DuckDBInstance.create(join(dir, "native.duckdb"), {
      autoinstall_known_extensions: "false",
      autoload_known_extensions: "false",
    });
    const native = await instance.connect();
    const nativeLoad = await time(() =>
      native.run(`CREATE TABLE telemetry AS SELECT * FROM read_parquet([${files.join(", ")}])`),
    );
    const nativeWarm = await repeat(RUNS, async () => (await native.run(GROUP_BY)).getColumns());
    native.closeSync();
    instance.closeSync();

    // The hand-written loop over Arrow vectors (after reading the table once).
    let arrow: A.Table | undefined;
    const readAll = await time(async () => {
      arrow = await ns.telemetry.read();
    });
    const loop = await repeat(RUNS, () => {
      if (loopGroupBy(arrow!) !== CHANNELS) throw new Error("loop lost groups");
    });

    const floor = median(nativeWarm);
    printTable(
      `SQL in Node: GROUP BY channel over ${ROWS / 1e6}M rows (channel, ts, value); medians of ${RUNS}`,
      [
        {
          case: "ours: first query (loads 10 Parquet files into DuckDB)",
          median_ms: cold,
          ratio: ratio(cold, nativeLoad + floor),
          note: "one run; ratio = × (native load + one query)",
        },
        {
          case: "ours: repeated GROUP BY channel",
          median_ms: median(warm),
          ratio: ratio(median(warm), floor),
          note: "ratio = × DuckDB on its own storage (target ≤ 2×)",
        },
        { case: "DuckDB own storage: CREATE TABLE AS read_parquet", median_ms: nativeLoad, note: "one run" },
        { case: "DuckDB own storage: repeated GROUP BY channel", median_ms: floor, ratio: "1.00×" },
        { case: "table.read() into Arrow", median_ms: readAll, note: "one run" },
        {
          case: "hand-written loop over Arrow vectors",
          median_ms: median(loop),
          ratio: ratio(median(loop), floor),
          note: "Map keyed by channel",
        },
      ],
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
