// The SQL engine in Node: native DuckDB (@duckdb/node-api) with extension install and autoload off, so
// that no query ever reaches for the network. Data files are read by DuckDB itself with read_parquet —
// from their own path on a Node filesystem store, or from a private temp copy for stores with no paths —
// into a DuckDB database file in a private temp folder, removed on close.
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DuckDBConnection, DuckDBInstance, DuckDBValue } from "@duckdb/node-api";
import type * as A from "apache-arrow";
import { AvaError } from "../errors.js";
import { resultToArrow } from "./duckdb-to-arrow.js";
import {
  confinement,
  type DataFileSource,
  INTERNAL_SCHEMA,
  ident,
  literal,
  type SqlEngine,
} from "./engine.js";

export interface NodeEngineOptions {
  /** DuckDB's thread count; its default is one per core. */
  threads?: number;
}

/** Temp folders are named by their process, so that a later open can remove those of dead processes. */
const SCRATCH_PREFIX = "avalanche-sql-";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === "EPERM"; // exists, but another user's
  }
}

/** Removes the temp folders of processes killed while using SQL (a live process's are never touched). */
async function removeStaleScratch(): Promise<void> {
  const names = await readdir(tmpdir()).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(/^avalanche-sql-(\d+)-/.exec(name)?.[1]);
    if (pid > 0 && pid !== process.pid && !alive(pid))
      await rm(join(tmpdir(), name), { recursive: true, force: true }).catch(() => {});
  }
}

/**
 * @param allowed folders DuckDB may read besides its own temp folder (the storage's data files); every
 *   other path, extension loading and configuration changes are refused once the engine is set up.
 */
export async function nodeEngine(
  { threads }: NodeEngineOptions = {},
  allowed: readonly string[] = [],
): Promise<SqlEngine> {
  let DuckDBInstance: typeof import("@duckdb/node-api").DuckDBInstance;
  try {
    ({ DuckDBInstance } = await import("@duckdb/node-api"));
  } catch (cause) {
    throw new AvaError(
      "UNAVAILABLE",
      "SQL in Node needs native DuckDB: npm install @duckdb/node-api (an optional peer dependency)",
      { cause },
    );
  }
  const config: Record<string, string> = {
    autoinstall_known_extensions: "false",
    autoload_known_extensions: "false",
  };
  if (threads !== undefined) config.threads = String(threads);
  // A database file in a private temp folder rather than ":memory:": DuckDB's on-disk table format
  // (compressed, with its statistics) made a 10M-row GROUP BY about 3× faster than its in-memory tables.
  await removeStaleScratch();
  const scratch = await mkdtemp(join(tmpdir(), `${SCRATCH_PREFIX}${process.pid}-`));
  let instance: DuckDBInstance;
  try {
    instance = await DuckDBInstance.create(join(scratch, "sql.duckdb"), config);
  } catch (err) {
    await rm(scratch, { recursive: true, force: true });
    throw err;
  }
  const connection: DuckDBConnection = await instance.connect();
  try {
    await connection.run(`CREATE SCHEMA IF NOT EXISTS ${ident(INTERNAL_SCHEMA)}`);
    for (const statement of confinement([scratch, ...allowed])) await connection.run(statement);
  } catch (err) {
    connection.closeSync();
    instance.closeSync();
    await rm(scratch, { recursive: true, force: true });
    throw err;
  }
  let copies = 0;
  let closed = false;

  return {
    async query(sql: string, params?: readonly unknown[]): Promise<A.Table> {
      return resultToArrow(await connection.run(sql, params as DuckDBValue[] | undefined));
    },
    async exec(sql: string): Promise<void> {
      await connection.run(sql);
    },
    interrupt(): void {
      if (!closed) connection.interrupt();
    },
    async loadFile(target: string, file: DataFileSource, { fileId, fileColumn, create }) {
      let path = file.localPath;
      let copy: string | undefined;
      if (path === undefined) {
        copy = join(scratch, `${copies++}.parquet`);
        await writeFile(copy, await file.bytes());
        path = copy;
      }
      try {
        const select = `SELECT *, ${fileId}::INTEGER AS ${ident(fileColumn)} FROM read_parquet(${literal(path)})`;
        const table = `${ident(INTERNAL_SCHEMA)}.${ident(target)}`;
        await connection.run(
          create ? `CREATE OR REPLACE TABLE ${table} AS ${select}` : `INSERT INTO ${table} ${select}`,
        );
      } finally {
        if (copy) await rm(copy, { force: true });
      }
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      connection.interrupt();
      connection.closeSync();
      instance.closeSync();
      await rm(scratch, { recursive: true, force: true });
    },
  };
}
