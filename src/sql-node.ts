// avalanche-web/sql in Node: SQL over a namespace's tables with native DuckDB (@duckdb/node-api), which
// reads the Parquet data files itself.
import type { NamespaceHandle } from "./table/namespace.js";
import { openDatabase, type SqlDatabase } from "./sql/database.js";
import { type NodeEngineOptions, nodeEngine } from "./sql/node-engine.js";

export type { QueryOptions, SnapshotPins, SqlDatabase, SqlLoadStats } from "./sql/database.js";
export type { NodeEngineOptions as SqlOptions } from "./sql/node-engine.js";

/** A DuckDB in which each table of `ns` is a view by its name at its current snapshot. */
export async function open(ns: NamespaceHandle, options: NodeEngineOptions = {}): Promise<SqlDatabase> {
  const { descriptor } = ns.storage;
  // DuckDB reads a Node store's data files in place, and nothing else.
  const allowed = descriptor.kind === "node" ? [`${descriptor.root}/data`] : [];
  return openDatabase(ns, await nodeEngine(options, allowed));
}
