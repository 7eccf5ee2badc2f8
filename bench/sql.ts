// SQL in Node over a 10M-row telemetry table (channel, ts, value) on nodeStorage: the first (cold) query,
// which brings the data files into DuckDB, then repeated GROUP BY channel queries. Beside it in the same
// run: the same rows in DuckDB's own storage (a native table, the floor), and a hand-written loop over
// the Arrow vectors of table.read().
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import type * as A from "apache-arrow";
import * as ava from "../src/node.js";
import { open } from "../src/sql-node.js";
import { median, printTable, ratio, repeat, time } from "./lib.js";
import { CHANNELS, GROUP_BY, loopGroupBy, telemetryRows, telemetrySchema } from "./sql-data.js";
import { runBenchPage } from "./browser-page.js";

const FILES = 10;
const ROWS_PER_FILE = 1_000_000;
const ROWS = FILES * ROWS_PER_FILE;
const RUNS = 5;
const schema = telemetrySchema;
const rows = (file: number) => telemetryRows(file * ROWS_PER_FILE, ROWS_PER_FILE);

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

  const t = await runBenchPage("sql.html");
  const m = (k: string) => median(t[k]!);
  printTable(`SQL in headless Chromium (duckdb-wasm): the same ${ROWS / 1e6}M rows in browserStorage`, [
    {
      case: "ours: first query (decodes 10 Parquet files, loads them into duckdb-wasm)",
      median_ms: m("cold"),
      ratio: ratio(m("cold"), m("nativeLoad") + m("nativeWarm")),
      note: "one run; ratio = × (direct Arrow insert + one query)",
    },
    {
      case: "ours: repeated GROUP BY channel",
      median_ms: m("warm"),
      ratio: ratio(m("warm"), m("nativeWarm")),
      note: "ratio = × duckdb-wasm on its own table (target ≤ 2×)",
    },
    { case: "duckdb-wasm own table: insertArrowFromIPCStream", median_ms: m("nativeLoad"), note: "one run" },
    { case: "duckdb-wasm own table: repeated GROUP BY channel", median_ms: m("nativeWarm"), ratio: "1.00×" },
    { case: "table.read() into Arrow (OPFS)", median_ms: m("read"), note: "one run" },
    {
      case: "hand-written loop over Arrow vectors",
      median_ms: m("loop"),
      ratio: ratio(m("loop"), m("nativeWarm")),
    },
  ]);
}
