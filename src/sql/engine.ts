// What the SQL layer needs from a DuckDB: run a statement, load one Parquet data file into a table, close.
// Two implementations: duckdb-wasm in a Worker (browser) and @duckdb/node-api (Node).
import type * as A from "apache-arrow";

/** A data file to bring into DuckDB: its bytes on demand, or a local path DuckDB reads itself. */
export interface DataFileSource {
  /** The store's relative path, for messages. */
  path: string;
  localPath?: string | undefined;
  bytes(): Promise<Uint8Array>;
}

/** The schema that holds the engine's own tables, apart from the user's names. */
export const INTERNAL_SCHEMA = "__ava";

/**
 * Statements that confine DuckDB once its setup is done: no file outside `allowed` (none at all when
 * empty), no extension loading, and a locked configuration so that a query cannot SET any of it back.
 */
export function confinement(allowed: readonly string[]): string[] {
  const dirs = allowed.map((d) => literal(d.endsWith("/") ? d : `${d}/`)).join(", ");
  return [
    ...(allowed.length > 0 ? [`SET allowed_directories=[${dirs}]`] : []),
    "SET enable_external_access=false",
    "SET lock_configuration=true",
  ];
}

export interface SqlEngine {
  /** Runs one statement and returns its rows as an Arrow table of the library's apache-arrow. */
  query(sql: string, params?: readonly unknown[]): Promise<A.Table>;
  /** Stops the running statement, if any (it then fails); safe to call at any time. */
  interrupt(): void;
  /** Runs statements whose result is not needed (DDL). */
  exec(sql: string): Promise<void>;
  /**
   * Appends a data file's rows to `target` with one more column, `fileColumn` = `fileId`; creates
   * `target` from the file when `create` is set.
   */
  loadFile(
    target: string,
    file: DataFileSource,
    options: { fileId: number; fileColumn: string; create: boolean },
  ): Promise<void>;
  close(): Promise<void>;
}

/** Quotes an SQL identifier. */
export function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Quotes an SQL string literal. */
export function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
