// Browser storage in headless Chromium, beside the peers offline apps use today, in one run:
// append 1M rows (10 × 100k) in a Worker and scan them back; 1,000 appends of 100 rows; the same rows as
// objects in IndexedDB (100k-row bulk puts, one transaction each); the same rows loaded into duckdb-wasm.
import { runBenchPage } from "./browser-page.js";
import { median, printTable, rate, ratio } from "./lib.js";

const ROWS = 1_000_000;

export async function benchBrowserStorage(): Promise<void> {
  const t = await runBenchPage("index.html");
  const m = (k: string) => median(t[k]!);
  const appendRate = ROWS / m("append");
  const idbRate = ROWS / m("idbPut");
  printTable("Browser storage in headless Chromium (medians of 3; small commits: median of 1,000)", [
    {
      case: "append 1M rows (10 × 100k) in a Worker, OPFS + IndexedDB",
      median_ms: m("append"),
      rate: rate(ROWS, m("append"), "rows"),
      ratio: ratio(appendRate, idbRate),
      note: `× the IndexedDB-objects rate (target ≥ 20×); ${ratio(m("append"), m("raw"))} the raw floor`,
    },
    {
      case: "raw floor: parquet-wasm encode + OPFS write, 6 columns",
      median_ms: m("raw"),
      rate: rate(ROWS, m("raw"), "rows"),
      note: "no library, no provenance, no catalog",
    },
    { case: "scan them back (read())", median_ms: m("scan"), rate: rate(ROWS, m("scan"), "rows") },
    {
      case: "IndexedDB objects: 10 bulk puts of 100k",
      median_ms: m("idbPut"),
      rate: rate(ROWS, m("idbPut"), "rows"),
      ratio: "1.00×",
    },
    {
      case: "IndexedDB objects: getAll",
      median_ms: m("idbGetAll"),
      rate: rate(ROWS, m("idbGetAll"), "rows"),
    },
    {
      case: "duckdb-wasm: insertArrowFromIPCStream",
      median_ms: m("duckdbLoad"),
      rate: rate(ROWS, m("duckdbLoad"), "rows"),
      ratio: ratio(ROWS / m("duckdbLoad"), idbRate),
    },
    {
      case: "append 100 rows, committed (1,000 in a row)",
      median_ms: m("small"),
      rate: rate(1, m("small"), "commits"),
      note: `target ≥ 200 commits/s; ${ratio(m("small"), m("rawSmall"))} the raw floor`,
    },
    {
      case: "raw floor: encode + OPFS write of 100 rows",
      median_ms: m("rawSmall"),
      rate: rate(1, m("rawSmall"), "files"),
    },
  ]);
}
