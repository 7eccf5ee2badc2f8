// `npm run bench`: every benchmark, each printing its table of medians and ratios. Never part of `npm test`.
// `npm run bench -- node` (or `browser`, `avro`, `sql`, `workflow`, `streams`, `live`, `serve`, `maintenance`,
// `iceberg`, `demo`, `warehouse`, `bullmq`) runs one group. Each group's module is loaded when it runs: a
// group timed in this process should not carry the others' libraries (Playwright alone is ~58 MB of heap,
// which every full collection of a Node case would walk).

const only = process.argv[2];
if (!only || only === "node") await (await import("./tables.js")).benchTables();
if (!only || only === "browser") await (await import("./browser-storage.js")).benchBrowserStorage();
if (!only || only === "avro") await (await import("./avro.js")).benchAvro();
if (!only || only === "sql") await (await import("./sql.js")).benchSql();
if (!only || only === "workflow") await (await import("./workflow.js")).benchWorkflow();
if (!only || only === "streams") await (await import("./streams.js")).benchStreams();
if (!only || only === "live") await (await import("./live.js")).benchLive();
if (only === "live-browser") await (await import("./live-browser.js")).benchLiveBrowser(); // the Chromium half of `live` alone
if (!only || only === "serve") await (await import("./serve.js")).benchServe();
if (!only || only === "maintenance") await (await import("./maintenance.js")).benchMaintenance();
if (!only || only === "iceberg") await (await import("./iceberg.js")).benchIceberg();
if (!only || only === "demo") await (await import("./demo.js")).benchDemo();
if (!only || only === "warehouse") await (await import("./warehouse.js")).benchWarehouse();
if (!only || only === "bullmq") await (await import("./bullmq.js")).benchBullmq();
