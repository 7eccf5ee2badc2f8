// SQL over a namespace's tables. Each table is a view by its own name over a DuckDB table that holds the
// rows of every data file brought in so far, each row tagged with its file's number; a view shows the live
// files of the table's current snapshot, or of a pinned one (`db.at`). Before each query the catalog is
// read, files not yet in DuckDB are loaded (once each: an append loads only its own file) and views whose
// file set changed are redefined. Queries run one at a time, since views are connection-wide.
import * as A from "apache-arrow";
import { AvaError, isAvaError, toAvaError } from "../errors.js";
import { decodeParquet, encodeParquet } from "../parquet/parquet.js";
import type { DataFile } from "../storage/catalog/model.js";
import type { Storage } from "../storage/types.js";
import type { NamespaceHandle } from "../table/namespace.js";
import { conformer, type FileProjection, SchemaLayout } from "../table/file-layout.js";
import { dataFileParquet, isInlinePath } from "../table/inline-data.js";
import { pinSnapshot } from "../table/pins.js";
import { Table, tableEntry } from "../table/table.js";
import { READ_ONLY } from "./read-only.js";
import { type DataFileSource, INTERNAL_SCHEMA, ident, type SqlEngine } from "./engine.js";

export interface QueryOptions {
  /** Aborting it stops the query: CANCELLED. */
  signal?: AbortSignal;
  /** Stops the query after this many milliseconds: TIMEOUT. */
  timeoutMs?: number;
}

const cancelled = () => new AvaError("CANCELLED", "the query was cancelled");

/** Which file each DuckDB row came from; never shown by the views. */
const FILE_COLUMN = "__ava_file";

export interface SqlLoadStats {
  /** Data files brought into DuckDB so far (each at most once). */
  files: number;
  rows: number;
}

/** Table name -> snapshot id. */
export type SnapshotPins = Readonly<Record<string, string>>;

interface Loaded {
  target: string;
  /** Data file path -> its number in FILE_COLUMN. */
  files: Map<string, number>;
}

class Session {
  readonly stats: SqlLoadStats = { files: 0, rows: 0 };
  readonly #loaded = new Map<string, Loaded>();
  readonly #views = new Map<string, string>();
  #queue: Promise<unknown> = Promise.resolve();
  #nextFileId = 0;
  closed = false;
  /** Releases the snapshots `at()` pinned against retention, when the database closes. */
  readonly releases: (() => void)[] = [];

  constructor(
    readonly engine: SqlEngine,
    readonly storage: Storage,
    readonly tables: ReadonlyMap<string, Table>,
  ) {}

  /** Runs `fn` after every earlier call has finished. */
  serialize<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn);
    this.#queue = run.catch(() => {});
    return run;
  }

  /** Settles when every call queued so far has, or after `ms`, whichever comes first. */
  drained(ms: number): Promise<unknown> {
    return Promise.race([this.#queue, new Promise((r) => setTimeout(r, ms))]);
  }

  /**
   * After a statement that may have changed the schema (DROP VIEW orders, say), every view and internal
   * table is redefined before the next query rather than trusted from memory.
   */
  forget(): void {
    this.#views.clear();
    this.#loaded.clear();
    this.#nextFileId = 0;
  }

  async sync(pins: SnapshotPins): Promise<void> {
    const state = await this.storage.catalog.current();
    const views: [string, Table, Loaded, readonly DataFile[]][] = [];
    for (const [name, table] of this.tables) {
      if (!state.tables[table.identifier]) continue; // not pushed yet: no view, so a query names the missing table
      const entry = tableEntry(state, table.declaration); // SCHEMA_MISMATCH for a stale declaration
      const pin = pins[name];
      // A pinned snapshot's live files come from the table's own scan plan (NOT_FOUND for an unknown id).
      const live =
        pin === undefined ? entry.history.liveFiles : (await table.scan({ snapshotId: pin }).plan()).files;
      const loaded = await this.#load(table, live, new SchemaLayout(entry.schemas, table.schema));
      views.push([name, table, loaded, live]);
    }
    // Views after every load: a table seen under two names (one pinned) shares its loaded files.
    for (const [name, table, loaded, live] of views) await this.#view(name, table, loaded, live);
  }

  async #load(table: Table, live: readonly DataFile[], layout: SchemaLayout): Promise<Loaded> {
    let loaded = this.#loaded.get(table.identifier);
    if (!loaded) {
      // Created from a file with the table's schema and no rows, so that DuckDB maps the types exactly
      // as it will for the data files, and an empty table still has its columns.
      // By identifier: tables of the same name in two namespaces are two DuckDB tables.
      const target = `data_${table.identifier}`;
      const empty = await encodeParquet(new A.Table(table.schema, []));
      await this.engine.loadFile(
        target,
        { path: `(schema of ${table.identifier})`, bytes: async () => empty },
        { fileId: -1, fileColumn: FILE_COLUMN, create: true },
      );
      loaded = { target, files: new Map() };
      this.#loaded.set(table.identifier, loaded);
    }
    for (const file of live) {
      if (loaded.files.has(file.path)) continue;
      const fileId = this.#nextFileId++;
      const files = this.storage.files;
      // A file of an older schema version is brought in as the current one (renamed, widened, filled).
      const projection = layout.projection(file);
      const source: DataFileSource = projection
        ? { path: file.path, bytes: () => this.#conformed(table, file, projection) }
        : isInlinePath(file.path)
          ? { path: file.path, bytes: () => dataFileParquet(files, file) }
          : { path: file.path, localPath: files.localPath?.(file.path), bytes: () => files.read(file.path) };
      try {
        await this.engine.loadFile(loaded.target, source, { fileId, fileColumn: FILE_COLUMN, create: false });
      } catch (err) {
        if (isAvaError(err))
          throw new AvaError(
            err.code,
            `data file ${file.path} of table ${table.identifier}: ${err.message}`,
            {
              cause: err,
            },
          );
        // DuckDB's own message ("IO Error: No files found…") says little: name the file and what is wrong.
        const missing = await files.readRange(file.path, 0, 1).then(
          () => false,
          (e: unknown) => isAvaError(e, "NOT_FOUND"),
        );
        throw new AvaError(
          missing ? "NOT_FOUND" : "DATA_CORRUPT",
          `data file ${file.path} of table ${table.identifier} cannot be loaded into DuckDB: ${missing ? "it does not exist" : (err as Error)?.message}`,
          { cause: err },
        );
      }
      loaded.files.set(file.path, fileId);
      this.stats.files++;
      this.stats.rows += file.rowCount;
    }
    return loaded;
  }

  async #conformed(table: Table, file: DataFile, projection: FileProjection): Promise<Uint8Array> {
    const decoded = await decodeParquet(await dataFileParquet(this.storage.files, file), { path: file.path });
    const conform = conformer(decoded.schema, table.schema, file, projection);
    return encodeParquet(new A.Table(table.schema, decoded.batches.map(conform)));
  }

  async #view(name: string, table: Table, loaded: Loaded, live: readonly DataFile[]): Promise<void> {
    const columns = table.schema.fields.map((f) => ident(f.name)).join(", ");
    // Every loaded file live (the common case of a table only appended to): no filter at all.
    const filter =
      live.length === loaded.files.size
        ? ""
        : ` WHERE ${ident(FILE_COLUMN)} IN (${live.map((f) => loaded.files.get(f.path)).join(", ") || "NULL"})`;
    const source = `${ident(INTERNAL_SCHEMA)}.${ident(loaded.target)}`;
    // A name "ns.table" is a view in a DuckDB schema per namespace (`SELECT * FROM ns.table`).
    const dot = name.indexOf(".");
    const view = dot < 0 ? ident(name) : `${ident(name.slice(0, dot))}.${ident(name.slice(dot + 1))}`;
    const definition = `CREATE OR REPLACE VIEW ${view} AS SELECT ${columns} FROM ${source}${filter}`;
    if (this.#views.get(name) === definition) return;
    if (dot >= 0) await this.engine.exec(`CREATE SCHEMA IF NOT EXISTS ${ident(name.slice(0, dot))}`);
    await this.engine.exec(definition);
    this.#views.set(name, definition);
  }
}

export class SqlDatabase {
  readonly #session: Session;
  readonly #pins: SnapshotPins;

  /** @internal use `open(ns)` */
  constructor(session: Session, pins: SnapshotPins = {}) {
    this.#session = session;
    this.#pins = pins;
  }

  /**
   * Runs one SQL statement over the namespace's tables; `params` fill `?` or `$1` placeholders. A query
   * that outlives `timeoutMs` fails with TIMEOUT, one whose `signal` aborts with CANCELLED; either way
   * DuckDB is interrupted and the database stays usable.
   */
  query(sql: string, params?: readonly unknown[], options: QueryOptions = {}): Promise<A.Table> {
    const session = this.#session;
    if (session.closed)
      return Promise.reject(new AvaError("INVALID_ARGUMENT", "this SQL database is closed"));
    const { signal, timeoutMs } = options;
    if (timeoutMs !== undefined && !(typeof timeoutMs === "number" && timeoutMs > 0))
      return Promise.reject(
        new AvaError("INVALID_ARGUMENT", `timeoutMs must be a positive number, got ${timeoutMs}`),
      );
    if (signal?.aborted) return Promise.reject(cancelled());
    return session.serialize(async () => {
      if (session.closed) throw new AvaError("INVALID_ARGUMENT", "this SQL database is closed");
      if (signal?.aborted) throw cancelled();
      let stopped: AvaError | undefined;
      const stop = (why: AvaError) => {
        stopped ??= why;
        session.engine.interrupt();
      };
      const onAbort = () => stop(cancelled());
      signal?.addEventListener("abort", onAbort);
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(
              () =>
                stop(new AvaError("TIMEOUT", `the query ran longer than ${timeoutMs} ms and was stopped`)),
              timeoutMs,
            );
      try {
        try {
          await session.sync(this.#pins);
        } catch (err) {
          throw toAvaError(err, "bringing the tables into DuckDB");
        }
        if (stopped) throw stopped;
        try {
          return await session.engine.query(sql, params);
        } catch (err) {
          if (stopped) throw stopped;
          if (isAvaError(err)) throw err;
          throw new AvaError("SQL_ERROR", (err as Error)?.message ?? String(err), { cause: err });
        } finally {
          if (!READ_ONLY.test(sql)) session.forget();
        }
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      }
    });
  }

  /**
   * The same database with some tables seen at older snapshots (time travel in SQL); the rest stay at
   * their current snapshot. A snapshot id that does not exist is refused by the next query.
   */
  at(pins: SnapshotPins): SqlDatabase {
    for (const name of Object.keys(pins)) {
      if (!this.#session.tables.has(name))
        throw new AvaError("NOT_FOUND", `at(): ${name} is not a table of this namespace`);
    }
    // A pinned handle keeps its snapshots from expiring for as long as the database is open.
    for (const [name, id] of Object.entries(pins))
      if (typeof id === "string")
        this.#session.releases.push(
          pinSnapshot(this.#session.storage, this.#session.tables.get(name)!.identifier, id),
        );
    return new SqlDatabase(this.#session, { ...this.#pins, ...pins });
  }

  /** What has been brought into DuckDB so far. */
  get loads(): SqlLoadStats {
    return { ...this.#session.stats };
  }

  /** Closes DuckDB; every database made by `at()` from this one closes with it. */
  close(): Promise<void> {
    const session = this.#session;
    if (session.closed) return Promise.resolve();
    session.closed = true;
    for (const release of session.releases.splice(0)) release();
    // A running query is interrupted rather than waited for: close always settles.
    session.engine.interrupt();
    return session.drained(2000).then(() => session.engine.close());
  }
}

/** Binds an engine to a namespace's declared tables. */
export function openDatabase(ns: NamespaceHandle, engine: SqlEngine): SqlDatabase {
  const tables = new Map<string, Table>();
  for (const [key, value] of Object.entries(ns)) if (value instanceof Table) tables.set(key, value);
  return openTablesDatabase(ns.storage, tables, engine);
}

/**
 * Binds an engine to tables by view name: a plain name is a view in DuckDB's default schema, "ns.table"
 * a view in the schema `ns` (the same Table may be listed under both; its data is loaded once).
 */
export function openTablesDatabase(
  storage: Storage,
  tables: ReadonlyMap<string, Table>,
  engine: SqlEngine,
): SqlDatabase {
  return new SqlDatabase(new Session(engine, storage, tables));
}
