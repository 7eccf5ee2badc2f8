// Tables on nodeStorage against the floors beside them, in one run:
// - append 1M rows x 6 columns (+ provenance) in batches of 100k, and scan them back, vs parquet-wasm with
//   no library around it (encode + write the same Arrow batches; read + decode them) and native DuckDB
//   (COPY ... TO parquet; read_parquet into a table) on the same rows;
// - a 100-row append, committed (median and p95);
// - opening a table that has 10,000 snapshots.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import * as ava from "../src/node.js";
import { decodeParquet, encodeParquet } from "../src/parquet/parquet.js";
import { BATCH, makeBatch, schema } from "./data.js";
import { median, percentile, printTable, type Row, rate, ratio, repeat } from "./lib.js";

const BATCHES = 10;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

const Bench = (rowLineage: boolean) =>
  ava.defineNamespace({ name: "bench", tables: { points: ava.table({ schema, rowLineage }) } });

export async function benchTables(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "ava-bench-"));
  const batches = Array.from({ length: BATCHES }, (_, b) => makeBatch(b));
  const rows = BATCH * BATCHES;
  await encodeParquet(batches[0]!); // load the wasm before timing anything

  // --- raw parquet-wasm: the floor
  const rawDir = (run: number) => join(dir, `raw-${run}`);
  const rawWrite = await repeat(RUNS, async (run) => {
    const { mkdir } = await import("node:fs/promises");
    await mkdir(rawDir(run), { recursive: true });
    for (let b = 0; b < BATCHES; b++)
      await writeFile(join(rawDir(run), `${b}.parquet`), await encodeParquet(batches[b]!));
  });
  // The same floor for the 15 columns an append stores (6 user + 9 provenance), to tell library overhead
  // apart from the cost of writing the provenance columns themselves.
  const storedSchema = ava.table({ schema }).schema.stored;
  const { withProvenance } = await import("../src/schema/provenance.js");
  const storedBatches = batches.map((b) => withProvenance(b, storedSchema, undefined, 0n));
  const rawWriteStored = await repeat(RUNS, async (run) => {
    const { mkdir } = await import("node:fs/promises");
    await mkdir(`${rawDir(run)}-stored`, { recursive: true });
    for (let b = 0; b < BATCHES; b++) {
      await writeFile(join(`${rawDir(run)}-stored`, `${b}.parquet`), await encodeParquet(storedBatches[b]!));
    }
  });
  const rawRead = await repeat(RUNS, async () => {
    let n = 0;
    for (let b = 0; b < BATCHES; b++)
      n += (await decodeParquet(new Uint8Array(await readFile(join(rawDir(0), `${b}.parquet`))))).numRows;
    if (n !== rows) throw new Error("raw read lost rows");
  });

  // --- ours, with and without provenance
  const appendRuns = async (rowLineage: boolean, fsync: boolean) => {
    let last: Awaited<ReturnType<ReturnType<typeof Bench>["open"]>> | undefined;
    const timings = await repeat(RUNS, async (run) => {
      const ns = await Bench(rowLineage).open({
        storage: ava.nodeStorage({ root: join(dir, `ours-${rowLineage}-${fsync}-${run}`), fsync }),
      });
      await ns.push();
      for (const batch of batches) await ns.points.append(batch);
      last = ns;
    });
    return { timings, ns: last! };
  };
  const ours = await appendRuns(true, true);
  const oursNoFsync = await appendRuns(true, false);
  const oursNoLineage = await appendRuns(false, true);
  const scanAll = await repeat(RUNS, async () => {
    if ((await ours.ns.points.read()).numRows !== rows) throw new Error("scan lost rows");
  });
  const userColumns = schema.fields.map((f) => f.name);
  const scanUser = await repeat(RUNS, async () => {
    if ((await ours.ns.points.scan({ columns: userColumns }).toArrow()).numRows !== rows)
      throw new Error("scan lost rows");
  });

  // --- native DuckDB on the same rows (loaded from the raw files once, untimed)
  const duck = await DuckDBInstance.create(":memory:", {
    autoinstall_known_extensions: "false",
    autoload_known_extensions: "false",
  });
  const conn = await duck.connect();
  await conn.run(`CREATE TABLE src AS SELECT * FROM read_parquet('${rawDir(0)}/*.parquet')`);
  const duckWrite = await repeat(RUNS, (run) =>
    conn.run(`COPY src TO '${join(dir, `duck-${run}.parquet`)}' (FORMAT parquet, COMPRESSION zstd)`),
  );
  const duckRead = await repeat(RUNS, () =>
    conn.run(`CREATE OR REPLACE TABLE back AS SELECT * FROM read_parquet('${join(dir, "duck-0.parquet")}')`),
  );
  conn.closeSync();
  duck.closeSync();

  const m = (xs: number[]) => median(xs);
  const table: Row[] = [
    {
      case: "append 1M rows (10 × 100k), provenance, fsync",
      median_ms: m(ours.timings),
      rate: rate(rows, m(ours.timings), "rows"),
      ratio: ratio(m(ours.timings), m(rawWrite)),
      note: "vs raw parquet-wasm write",
    },
    {
      case: "append, provenance, no fsync",
      median_ms: m(oursNoFsync.timings),
      rate: rate(rows, m(oursNoFsync.timings), "rows"),
      ratio: ratio(m(oursNoFsync.timings), m(rawWrite)),
    },
    {
      case: "append, rowLineage: false, fsync",
      median_ms: m(oursNoLineage.timings),
      rate: rate(rows, m(oursNoLineage.timings), "rows"),
      ratio: ratio(m(oursNoLineage.timings), m(rawWrite)),
    },
    {
      case: "raw parquet-wasm: encode + writeFile",
      median_ms: m(rawWrite),
      rate: rate(rows, m(rawWrite), "rows"),
      ratio: "1.00×",
      note: "the floor",
    },
    {
      case: "raw parquet-wasm: the 15 stored columns",
      median_ms: m(rawWriteStored),
      rate: rate(rows, m(rawWriteStored), "rows"),
      ratio: ratio(m(rawWriteStored), m(rawWrite)),
      note: `first row / this: ${ratio(m(ours.timings), m(rawWriteStored))}`,
    },
    {
      case: "DuckDB native: COPY TO parquet (zstd)",
      median_ms: m(duckWrite),
      rate: rate(rows, m(duckWrite), "rows"),
      ratio: ratio(m(duckWrite), m(rawWrite)),
    },
    {
      case: "scan all 15 columns (read())",
      median_ms: m(scanAll),
      rate: rate(rows, m(scanAll), "rows"),
      ratio: ratio(m(scanAll), m(rawRead)),
      note: "vs raw read of 6 columns",
    },
    {
      case: "scan the 6 user columns",
      median_ms: m(scanUser),
      rate: rate(rows, m(scanUser), "rows"),
      ratio: ratio(m(scanUser), m(rawRead)),
      note: "vs raw read of 6 columns",
    },
    {
      case: "raw parquet-wasm: readFile + decode",
      median_ms: m(rawRead),
      rate: rate(rows, m(rawRead), "rows"),
      ratio: "1.00×",
      note: "the floor",
    },
    {
      case: "DuckDB native: read_parquet into a table",
      median_ms: m(duckRead),
      rate: rate(rows, m(duckRead), "rows"),
      ratio: ratio(m(duckRead), m(rawRead)),
    },
  ];
  printTable(`Append and scan 1M rows × 6 columns on nodeStorage (median of ${RUNS})`, table);

  // --- small commits
  const small = makeBatch(0).slice(0, 100);
  const smallNs = await Bench(true).open({ storage: ava.nodeStorage({ root: join(dir, "small") }) });
  await smallNs.push();
  const smallNoFsyncNs = await Bench(true).open({
    storage: ava.nodeStorage({ root: join(dir, "small-nofsync"), fsync: false }),
  });
  await smallNoFsyncNs.push();
  const appends = await repeat(200, () => smallNs.points.append(small));
  const appendsNoFsync = await repeat(200, () => smallNoFsyncNs.points.append(small));
  const rawSmall = await repeat(200, async (i) =>
    writeFile(join(dir, `raw-small-${i}.parquet`), await encodeParquet(small)),
  );
  printTable("100-row appends, one after another (200 each)", [
    {
      case: "append 100 rows, committed, fsync",
      median_ms: m(appends),
      rate: rate(1, m(appends), "commits"),
      ratio: ratio(m(appends), m(rawSmall)),
      note: `p95 ${percentile(appends, 95).toFixed(2)} ms; target < 5 ms median`,
    },
    {
      case: "append 100 rows, committed, no fsync",
      median_ms: m(appendsNoFsync),
      rate: rate(1, m(appendsNoFsync), "commits"),
      ratio: ratio(m(appendsNoFsync), m(rawSmall)),
      note: `p95 ${percentile(appendsNoFsync, 95).toFixed(2)} ms`,
    },
    {
      case: "raw parquet-wasm: encode + writeFile 100 rows",
      median_ms: m(rawSmall),
      rate: rate(1, m(rawSmall), "files"),
      ratio: "1.00×",
      note: "no commit at all",
    },
  ]);

  // --- opening a table with 10,000 snapshots
  const manyRoot = join(dir, "many");
  const many = await Bench(false).open({ storage: ava.nodeStorage({ root: manyRoot, fsync: false }) });
  await many.push();
  const tiny = makeBatch(0).slice(0, 1);
  for (let i = 0; i < 10_000; i++) await many.points.append(tiny);
  const opens = await repeat(RUNS * 2, async () => {
    const ns = await Bench(false).open({ storage: ava.nodeStorage({ root: manyRoot }) });
    const current = await ns.points.currentSnapshot();
    if (current?.sequenceNumber !== 10_000) throw new Error("open lost snapshots");
  });
  const opensAndHistory = await repeat(RUNS * 2, async () => {
    const ns = await Bench(false).open({ storage: ava.nodeStorage({ root: manyRoot }) });
    if ((await ns.points.history()).length !== 10_000) throw new Error("history lost snapshots");
  });
  const opensAndRead = await repeat(RUNS, async () => {
    const ns = await Bench(false).open({ storage: ava.nodeStorage({ root: manyRoot }) });
    if ((await ns.points.read({ snapshotId: (await ns.points.history())[4_999]!.id })).numRows !== 5_000)
      throw new Error("time travel lost rows");
  });
  printTable("A table with 10,000 snapshots", [
    { case: "open (new storage instance) + currentSnapshot()", median_ms: m(opens), note: "target < 100 ms" },
    { case: "open + history() (all 10,000 snapshots parsed)", median_ms: m(opensAndHistory) },
    {
      case: "open + time travel to snapshot 5,000 + read 5,000 files",
      median_ms: m(opensAndRead),
      rate: rate(5_000, m(opensAndRead), "files"),
    },
  ]);

  await rm(dir, { recursive: true, force: true });
}
