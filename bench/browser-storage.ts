// Browser storage in headless Chromium, beside the peers offline apps use today, in one run:
// append 1M rows (10 × 100k) in a Worker and scan them back; 1,000 appends of 100 rows; the same rows as
// objects in IndexedDB (100k-row bulk puts, one transaction each); the same rows loaded into duckdb-wasm.
import { fileURLToPath } from "node:url";
import { chromium } from "playwright";
import { createServer } from "vite";
import { CHROMIUM_ARGS, chromiumPath } from "../scripts/chromium-path.mjs";
import { median, printTable, rate, ratio } from "./lib.js";

const ROWS = 1_000_000;

export async function benchBrowserStorage(): Promise<void> {
  const root = fileURLToPath(new URL("./browser/", import.meta.url));
  const server = await createServer({
    configFile: false,
    root,
    logLevel: "error",
    server: { port: 0, host: "127.0.0.1", fs: { allow: [fileURLToPath(new URL("..", import.meta.url))] } },
    optimizeDeps: {
      include: ["apache-arrow", "idb", "zod", "@duckdb/duckdb-wasm"],
      exclude: ["parquet-wasm"],
    },
  });
  await server.listen();
  const address = server.httpServer!.address() as { port: number };
  const browser = await chromium.launch({
    executablePath: chromiumPath() ?? "/usr/bin/chromium",
    args: CHROMIUM_ARGS,
  });
  try {
    const page = await browser.newPage();
    page.on("pageerror", (e) => console.error("page error:", e.message));
    await page.goto(`http://127.0.0.1:${address.port}/index.html`);
    await page.waitForFunction(() => window.__bench !== undefined, undefined, {
      timeout: 600_000,
      polling: 500,
    });
    const result = await page.evaluate(() => window.__bench!);
    if (!result.ok) throw new Error(result.error);
    const t = result.timings!;
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
  } finally {
    await browser.close();
    await server.close();
  }
}
