// `npm run bench`: every benchmark, each printing its table of medians and ratios. Never part of `npm test`.
// `npm run bench -- node` (or `browser`, `avro`, `sql`, `workflow`, `streams`, `live`, `serve`, `maintenance`,
// `iceberg`, `demo`, `warehouse`, `bullmq`) runs one group.
import { benchAvro } from "./avro.js";
import { benchBrowserStorage } from "./browser-storage.js";
import { benchBullmq } from "./bullmq.js";
import { benchDemo } from "./demo.js";
import { benchIceberg } from "./iceberg.js";
import { benchLive } from "./live.js";
import { benchLiveBrowser } from "./live-browser.js";
import { benchMaintenance } from "./maintenance.js";
import { benchServe } from "./serve.js";
import { benchSql } from "./sql.js";
import { benchStreams } from "./streams.js";
import { benchTables } from "./tables.js";
import { benchWarehouse } from "./warehouse.js";
import { benchWorkflow } from "./workflow.js";

const only = process.argv[2];
if (!only || only === "node") await benchTables();
if (!only || only === "browser") await benchBrowserStorage();
if (!only || only === "avro") await benchAvro();
if (!only || only === "sql") await benchSql();
if (!only || only === "workflow") await benchWorkflow();
if (!only || only === "streams") await benchStreams();
if (!only || only === "live") await benchLive();
if (only === "live-browser") await benchLiveBrowser(); // the Chromium half of `live` alone
if (!only || only === "serve") await benchServe();
if (!only || only === "maintenance") await benchMaintenance();
if (!only || only === "iceberg") await benchIceberg();
if (!only || only === "demo") await benchDemo();
if (!only || only === "warehouse") await benchWarehouse();
if (!only || only === "bullmq") await benchBullmq();
