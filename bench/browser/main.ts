/// <reference types="vite/client" />
// The browser bench page: runs the storage Worker, then loads the same rows into duckdb-wasm (bundles served
// from this origin, extension autoload off), and leaves the timings on `window.__bench`.
import * as duckdb from "@duckdb/duckdb-wasm";
import duckdbWasm from "@duckdb/duckdb-wasm/dist/duckdb-eh.wasm?url";
import duckdbWorker from "@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js?url";
import { tableToIPC } from "apache-arrow";
import { BATCH, makeBatch } from "../data.js";
import { report } from "./report.js";

async function storageWorker(): Promise<Record<string, number[]>> {
  const worker = new Worker(new URL("./storage.worker.ts", import.meta.url), { type: "module" });
  const result = await new Promise<{ ok: boolean; timings?: Record<string, number[]>; error?: string }>(
    (resolve) => {
      worker.onmessage = (e) => resolve(e.data);
      worker.onerror = (e) => resolve({ ok: false, error: e.message });
      worker.postMessage("go");
    },
  );
  worker.terminate();
  if (!result.ok) throw new Error(result.error);
  return result.timings!;
}

async function duckdbLoad(): Promise<number[]> {
  const worker = new Worker(duckdbWorker);
  const db = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), worker);
  await db.instantiate(duckdbWasm);
  const conn = await db.connect();
  await conn.query("SET autoinstall_known_extensions=false; SET autoload_known_extensions=false;");
  const batches = Array.from({ length: 10 }, (_, b) => makeBatch(b));
  const timings: number[] = [];
  for (let run = 0; run < 3; run++) {
    // duckdb-wasm transfers each buffer to its Worker: serialize afresh every run (untimed).
    const ipc = batches.map((b) => tableToIPC(b, "stream"));
    const t0 = performance.now();
    for (const [i, bytes] of ipc.entries())
      await conn.insertArrowFromIPCStream(bytes, { name: `t${run}`, create: i === 0 });
    timings.push(performance.now() - t0);
    const count = await conn.query(`SELECT count(*)::INTEGER AS n FROM t${run}`);
    if (count.getChild("n")!.get(0) !== BATCH * 10) throw new Error("duckdb lost rows");
  }
  await conn.close();
  await db.terminate();
  return timings;
}

await report(async () => {
  const timings = await storageWorker();
  timings.duckdbLoad = await duckdbLoad();
  return timings;
});
