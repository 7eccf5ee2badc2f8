// The SQL engine in the browser: duckdb-wasm in its own Worker, bundles from the app's origin, extension
// install and autoload off (duckdb-wasm 1.32 has no built-in Parquet reader, and fetching one offline
// breaks the instance). Data files are decoded here with parquet-wasm and handed over as Arrow IPC.
import type { DuckDBBundles } from "@duckdb/duckdb-wasm";
import * as A from "apache-arrow";
import { AvaError } from "../errors.js";
import { decodeParquet } from "../parquet/parquet.js";
import { concatBytes } from "../util/bytes.js";
import { confinement, type DataFileSource, INTERNAL_SCHEMA, ident, type SqlEngine } from "./engine.js";

export interface WasmEngineOptions {
  /** URLs of the duckdb-wasm bundles; by default the ones Vite serves from the app's origin. */
  bundles?: DuckDBBundles;
}

/** `table` with one more Int32 column, `name`, holding `value` on every row. */
function withConstantColumn(table: A.Table, name: string, value: number): A.Table {
  const field = new A.Field(name, new A.Int32(), false);
  const schema = new A.Schema([...table.schema.fields, field]);
  const batches = table.batches.map((batch) => {
    const column = A.makeData({
      type: field.type,
      length: batch.numRows,
      nullCount: 0,
      data: new Int32Array(batch.numRows).fill(value),
    });
    const children = [...batch.data.children, column];
    const struct = A.makeData({
      type: new A.Struct(schema.fields),
      length: batch.numRows,
      nullCount: 0,
      children,
    });
    return new A.RecordBatch(schema, struct);
  });
  return new A.Table(schema, batches);
}

/** duckdb-wasm is an optional peer dependency (Node users never need it): missing, it is UNAVAILABLE. */
async function loadDuckdbWasm(): Promise<typeof import("@duckdb/duckdb-wasm")> {
  try {
    return await import("@duckdb/duckdb-wasm");
  } catch (cause) {
    throw new AvaError(
      "UNAVAILABLE",
      "SQL in the browser needs DuckDB-wasm: npm install @duckdb/duckdb-wasm (an optional peer dependency)" +
        ` — loading it failed: ${(cause as Error)?.message ?? String(cause)}`,
      { cause },
    );
  }
}

export async function wasmEngine({ bundles }: WasmEngineOptions = {}): Promise<SqlEngine> {
  const duckdb = await loadDuckdbWasm();
  const bundle = await duckdb.selectBundle(bundles ?? (await import("./duckdb-bundles.js")).localBundles);
  const worker = new Worker(bundle.mainWorker!);
  const db = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), worker);
  try {
    await db.instantiate(bundle.mainModule, bundle.pthreadWorker);
    // Decimals and HUGEINT sums as doubles, like the Node engine's results.
    await db.open({ query: { castDecimalToDouble: true } });
  } catch (err) {
    worker.terminate();
    throw err;
  }
  const conn = await db.connect();
  await conn.query("SET autoinstall_known_extensions=false");
  await conn.query("SET autoload_known_extensions=false");
  await conn.query(`CREATE SCHEMA IF NOT EXISTS ${ident(INTERNAL_SCHEMA)}`);
  // Data arrives as Arrow from this side: DuckDB itself needs no file at all.
  for (const statement of confinement([])) await conn.query(statement);
  let closed = false;
  // The bindings take the connection's number: results are read as bytes from them (see query).
  const id = conn.useUnsafe((_db, connection) => connection);

  return {
    async query(sql: string, params?: readonly unknown[]): Promise<A.Table> {
      // Results are taken as Arrow IPC bytes and read by this library's own Arrow: duckdb-wasm's Arrow
      // objects (its own apache-arrow copy, unless the app dedupes it) never reach the caller.
      if (params && params.length > 0) {
        const statement = await db.createPrepared(id, sql);
        try {
          return A.tableFromIPC(await db.runPrepared(id, statement, [...params]));
        } finally {
          await db.closePrepared(id, statement);
        }
      }
      // A pending query, polled from here: cancelPendingQuery (interrupt) can stop it between polls,
      // which a blocking runQuery call never allows.
      let header = await db.startPendingQuery(id, sql, false);
      while (header === null) {
        if (closed) throw new AvaError("CANCELLED", "the database was closed during the query");
        header = await db.pollPendingQuery(id);
      }
      const chunks = [header];
      for (;;) {
        const chunk = await db.fetchQueryResults(id);
        if (chunk === null) continue;
        if (chunk.length === 0) break;
        chunks.push(chunk);
      }
      return A.tableFromIPC(chunks.length === 1 ? chunks[0]! : concatBytes(chunks));
    },
    async exec(sql: string): Promise<void> {
      await conn.query(sql);
    },
    interrupt(): void {
      if (!closed) void db.cancelPendingQuery(id).catch(() => {});
    },
    async loadFile(target: string, file: DataFileSource, { fileId, fileColumn, create }) {
      const rows = withConstantColumn(
        await decodeParquet(await file.bytes(), { path: file.path }),
        fileColumn,
        fileId,
      );
      if (create) await conn.query(`DROP TABLE IF EXISTS ${ident(INTERNAL_SCHEMA)}.${ident(target)}`);
      await conn.insertArrowFromIPCStream(A.tableToIPC(rows, "stream"), {
        schema: INTERNAL_SCHEMA,
        name: target,
        create,
      });
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      // Terminating the Worker ends whatever it runs: close settles even under a runaway query.
      await Promise.race([conn.close().catch(() => {}), new Promise((r) => setTimeout(r, 1000))]);
      await db.terminate();
    },
  };
}
