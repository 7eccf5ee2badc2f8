// avalanche-web/sql in the browser: SQL over a namespace's tables with duckdb-wasm in its own Worker.
// Loaded only when imported (DuckDB is tens of MB); Node resolves this entry to sql-node.ts.
import type { NamespaceHandle } from "./table/namespace.js";
import { openDatabase, type SqlDatabase } from "./sql/database.js";
import { type WasmEngineOptions, wasmEngine } from "./sql/wasm-engine.js";

export type { QueryOptions, SnapshotPins, SqlDatabase, SqlLoadStats } from "./sql/database.js";
export type { WasmEngineOptions as SqlOptions } from "./sql/wasm-engine.js";

/** A DuckDB in which each table of `ns` is a view by its name at its current snapshot. */
export async function open(ns: NamespaceHandle, options: WasmEngineOptions = {}): Promise<SqlDatabase> {
  return openDatabase(ns, await wasmEngine(options));
}
