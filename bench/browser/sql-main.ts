/// <reference types="vite/client" />
// The SQL bench page: a 10M-row telemetry table in browserStorage (OPFS + IndexedDB), queried through
// avalanche-web/sql (duckdb-wasm in its own Worker): the first (cold) query, which loads the data files,
// then repeated GROUP BY channel. Beside it: the same rows inserted straight into a duckdb-wasm table (its
// own storage) and the hand-written loop over Arrow vectors.
import * as duckdb from "@duckdb/duckdb-wasm";
import duckdbWasm from "@duckdb/duckdb-wasm/dist/duckdb-eh.wasm?url";
import duckdbWorker from "@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js?url";
import { tableToIPC } from "apache-arrow";
import * as ava from "../../src/index.js";
import { open } from "../../src/sql.js";
import { ulid } from "../../src/util/ids.js";
import { GROUP_BY, loopGroupBy, telemetryRows, telemetrySchema } from "../sql-data.js";
import { report, timed } from "./report.js";

const FILES = 10;
const ROWS_PER_FILE = 1_000_000;
const RUNS = 5;

await report(async () => {
  const Bench = ava.defineNamespace({
    name: "bench",
    tables: { telemetry: ava.table({ schema: telemetrySchema, rowLineage: false }) },
  });
  const ns = await Bench.open({ storage: ava.browserStorage({ name: `sql${ulid()}`, persist: false }) });
  await ns.push();
  for (let f = 0; f < FILES; f++) await ns.telemetry.append(telemetryRows(f * ROWS_PER_FILE, ROWS_PER_FILE));

  const timings: Record<string, number[]> = {};
  const db = await open(ns);
  timings.cold = await timed(1, () => db.query(GROUP_BY));
  timings.warm = await timed(RUNS, () => db.query(GROUP_BY));
  await db.close();

  // duckdb-wasm's own storage: the same rows inserted straight into one of its tables.
  const worker = new Worker(duckdbWorker);
  const native = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), worker);
  await native.instantiate(duckdbWasm);
  const conn = await native.connect();
  await conn.query("SET autoinstall_known_extensions=false");
  await conn.query("SET autoload_known_extensions=false");
  const ipc = Array.from({ length: FILES }, (_, f) =>
    tableToIPC(telemetryRows(f * ROWS_PER_FILE, ROWS_PER_FILE)),
  );
  timings.nativeLoad = await timed(1, async () => {
    for (const [f, bytes] of ipc.entries())
      await conn.insertArrowFromIPCStream(bytes, { name: "telemetry", create: f === 0 });
  });
  timings.nativeWarm = await timed(RUNS, () => conn.query(GROUP_BY));
  await conn.close();
  await native.terminate();

  let arrow = await ns.telemetry.read();
  timings.read = await timed(1, async () => {
    arrow = await ns.telemetry.read();
  });
  timings.loop = await timed(RUNS, async () => {
    if (loopGroupBy(arrow) !== 100) throw new Error("loop lost groups");
  });
  return timings;
});
