// avalanche-web/sql in Node: SQL over a namespace's tables with native DuckDB (@duckdb/node-api), which
// reads the Parquet data files itself.
import type { NamespaceHandle } from "./table/namespace.js";
import { openDatabase, openTablesDatabase, type SqlDatabase } from "./sql/database.js";
import type { Storage } from "./storage/types.js";
import { storedTables } from "./table/stored-table.js";
import { type NodeEngineOptions, nodeEngine } from "./sql/node-engine.js";

export { isReadOnlySql } from "./sql/read-only.js";
export type { QueryOptions, SnapshotPins, SqlDatabase, SqlLoadStats } from "./sql/database.js";
export type { NodeEngineOptions as SqlOptions } from "./sql/node-engine.js";

/** A DuckDB in which each table of `ns` is a view by its name at its current snapshot. */
export async function open(ns: NamespaceHandle, options: NodeEngineOptions = {}): Promise<SqlDatabase> {
  const { descriptor } = ns.storage;
  // DuckDB reads a Node store's data files in place, and nothing else.
  const allowed = descriptor.kind === "node" ? [`${descriptor.root}/data`] : [];
  return openDatabase(ns, await nodeEngine(options, allowed));
}

/**
 * A DuckDB over every table of a storage, as the catalog holds them now (no declarations needed): each is
 * a view `ns.table`, and also `table` when no other namespace has a table of that name.
 */
export async function openStorage(storage: Storage, options: NodeEngineOptions = {}): Promise<SqlDatabase> {
  const { descriptor } = storage;
  const allowed = descriptor.kind === "node" ? [`${descriptor.root}/data`] : [];
  const tables = storedTables(storage, await storage.catalog.current());
  return openTablesDatabase(storage, tables, await nodeEngine(options, allowed));
}
