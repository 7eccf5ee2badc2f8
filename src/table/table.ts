// A table handle bound to a storage: append / overwrite write one Parquet file and commit one snapshot;
// scans read any snapshot. Write protocol: validate everything -> write the data file -> commit the
// snapshot (the only visible step). A failure before the commit leaves at most an orphan file.
import type * as A from "apache-arrow";
import type { AvroSource } from "../avro/read.js";
import { avroStreamToArrow, avroStreamToArrowIn, type ToArrowOptions } from "../avro/to-arrow.js";
import { AvaError, describeValue, isAvaError, toAvaError } from "../errors.js";
import {
  checkParquetCompression,
  encodeParquetToWrite,
  type ParquetCompression,
} from "../parquet/parquet.js";
import { coerceInput } from "../schema/coerce.js";
import { type RunProvenance, withProvenance } from "../schema/provenance.js";
import type { FieldJson } from "../schema/arrow-json.js";
import {
  type DataFile,
  type SchemaVersion,
  type Snapshot,
  schemaVersionsOf,
} from "../storage/catalog/model.js";
import type { TableHistory } from "../storage/catalog/history.js";
import type { CatalogState, SnapshotDraft, TableState } from "../storage/catalog/state.js";
import { clockOf, type Storage } from "../storage/types.js";
import { nowMicros, ulid, ulidTimeMs } from "../util/ids.js";
import { type CompactOptions, type CompactResult, compactTable } from "./compact.js";
import { INLINE_ON, INLINE_SUFFIX, inlinePayload } from "./inline-data.js";
import { flushInlinedIfDue, type InlineFlushStatus, inlineFlushStatus } from "./inline-flush.js";
import { AppendResult } from "./append-result.js";
import { type DropResult, dropTable } from "./drop.js";
import { exportIcebergAfterCommit } from "../iceberg/export.js";
import { withColumnSizes } from "../iceberg/column-metrics.js";
import { withParquetFieldIds } from "../iceberg/parquet-field-ids.js";
import type { BoundTableDeclaration } from "./declare.js";
import type { Predicate, Where } from "./predicate.js";
import { where } from "./predicate.js";
import { toModels } from "./rows.js";
import type { Transaction } from "./transaction.js";
import { Scan } from "./scan.js";
import { type CommitListener, subscribeCommits } from "./subscribe.js";
import { columnStats } from "./stats.js";
import { getOrCreate } from "../util/get-or-create.js";
import { BufferPool } from "../util/buffer-pool.js";
import { ColumnMemory } from "../util/column-memory.js";

// Stored schemas are shared by every state that holds the same table entry: serialize each one once.
const fingerprints = new WeakMap<object, string>();
function fingerprint(fields: readonly FieldJson[]): string {
  return getOrCreate(fingerprints, fields, () => JSON.stringify(fields));
}

/**
 * A declared table's entry in a catalog state, refused (SCHEMA_MISMATCH) unless the declaration is the
 * table's current schema: reads and writes need it to be, and push() is the one way to get there.
 */
export function tableEntry(
  state: CatalogState,
  decl: Pick<BoundTableDeclaration, "identifier" | "schema">,
): TableState {
  const entry = state.tables[decl.identifier];
  if (!entry)
    throw new AvaError(
      "NOT_FOUND",
      `table ${decl.identifier} does not exist; call push() on its namespace first`,
    );
  if (fingerprint(entry.schema) === decl.schema.fingerprint) return entry;
  const versions = schemaVersionsOf(entry);
  const current = versions.at(-1)!.id;
  const older = versions.find((v) => fingerprint(v.fields) === decl.schema.fingerprint);
  throw new AvaError(
    "SCHEMA_MISMATCH",
    older
      ? `table ${decl.identifier} is at schema version ${current}; this code declares version ${older.id}, an older one: update it to the table's current declaration (nothing was read or written)`
      : `table ${decl.identifier} is stored with schema version ${current}, which differs from its declaration: call push() on its namespace to evolve the table (or see the error push() gives)`,
  );
}

export interface AppendOptions {
  /**
   * Names this append so that it happens at most once: an append whose key a snapshot of the table already
   * carries writes nothing and answers that snapshot (`result.duplicate`). Keys live as long as their
   * snapshot (snapshot expiry ends them). Up to 200 printable ASCII characters; not inside a workflow node,
   * whose appends are already exactly once.
   */
  idempotencyKey?: string;
}

/** Refuses a key that is empty, too long or not printable ASCII (it travels in an HTTP header). */
function checkIdempotencyKey(key: unknown, identifier: string, tx: Transaction | undefined): void {
  if (typeof key !== "string" || !/^[\x21-\x7e]{1,200}$/.test(key))
    throw new AvaError(
      "INVALID_ARGUMENT",
      `append to ${identifier}: idempotencyKey must be 1 to 200 printable ASCII characters without spaces, got ${describeValue(key)}`,
    );
  if (tx)
    throw new AvaError(
      "INVALID_ARGUMENT",
      `append to ${identifier}: idempotencyKey cannot be used inside a workflow node (a node's appends already commit exactly once, with its stream progress)`,
    );
}

export interface AvroStreamAppendOptions extends ToArrowOptions, AppendOptions {
  /**
   * Parquet compression of the appended file. Default "zstd". "uncompressed" is written by a JS writer
   * several times faster than zstd through wasm (ingestHandler's default: the append is on the sender's path
   * to its acknowledgement); compaction merges small files and rewrites them with zstd.
   */
  compression?: ParquetCompression;
  /**
   * false: the result keeps no rows (`rowCount` and the snapshot only; `toArrow()` and the like refuse), and
   * the memory the file was decoded into is reused by the next such append once this one is written. For a
   * caller that only needs the receipt (ingestHandler): the columns of a file of a few megabytes, made fresh
   * for each append, made the garbage collector a fifth of an ingest. Default true.
   */
  keepRows?: boolean;
}

/** Decoded files' columns, reused by appends that keep no rows (keepRows: false), per thread. */
const decodedColumns = new BufferPool(64 * 1024 * 1024);

/**
 * What #write takes beyond AppendOptions: only the Avro stream path chooses its file's compression, and
 * gives the memory for the columns it adds (provenance) when it reuses its rows' memory.
 */
type WriteOptions = AppendOptions & Pick<AvroStreamAppendOptions, "compression"> & { memory?: ColumnMemory };

export type AppendInput<In> = A.Table | A.RecordBatch | readonly In[] | In;

export interface ScanOptions<Row> {
  /** Columns to read (user or provenance columns); all by default. */
  columns?: readonly string[];
  /** Rows to keep; data files whose statistics rule them out are never read. */
  filter?: Predicate | ((w: Where<Row>) => Predicate);
  /** Time travel: read the table as of this snapshot. */
  snapshotId?: string;
  /** At most this many rows, the first in commit order; files past them are never read. */
  limit?: number;
}

export class Table<Row = Record<string, unknown>, In = Row> {
  readonly #storage: Storage;
  readonly #run: RunProvenance | undefined;
  readonly #tx: Transaction | undefined;
  readonly declaration: BoundTableDeclaration<Row, In>;

  constructor(
    storage: Storage,
    declaration: BoundTableDeclaration<Row, In>,
    run?: RunProvenance,
    tx?: Transaction,
  ) {
    this.#storage = storage;
    this.declaration = declaration;
    this.#run = run;
    this.#tx = tx;
  }

  /** The storage the table lives in. */
  get storage(): Storage {
    return this.#storage;
  }

  get namespace(): string {
    return this.declaration.namespace;
  }

  get name(): string {
    return this.declaration.name;
  }

  /** "namespace.table" */
  get identifier(): string {
    return this.declaration.identifier;
  }

  /** The stored Arrow schema: user columns, then provenance columns when row lineage is on. */
  get schema(): A.Schema {
    return this.declaration.schema.stored;
  }

  /** The same table, writing rows stamped with a workflow run's provenance. */
  withRun(run: RunProvenance): Table<Row, In> {
    return new Table(this.#storage, this.declaration, run, this.#tx);
  }

  /**
   * The same table, its writes staged in `tx` and committed with it (a workflow node's writes commit
   * together when it returns). Reads do not see staged writes.
   */
  inTransaction(tx: Transaction): Table<Row, In> {
    return new Table(this.#storage, this.declaration, this.#run, tx);
  }

  /**
   * This table's entry in the latest catalog state. `fresh: false` first tries the state the catalog
   * already holds (no I/O) — right for a write's pre-flight, since the commit judges again on the latest
   * state; only a refusal on the held state sends it to read the latest one.
   */
  async #state({ fresh = true } = {}): Promise<TableState> {
    const held = fresh ? undefined : this.#storage.catalog.peek();
    if (held) {
      try {
        return this.#entry(held);
      } catch {
        // the held state may predate this table's creation: judge on the latest state below
      }
    }
    return this.#entry(await this.#storage.catalog.current());
  }

  #entry(state: CatalogState): TableState {
    return tableEntry(state, this.declaration);
  }

  append(data: AppendInput<In>, options: AppendOptions = {}): Promise<AppendResult<Row>> {
    return this.#write(data, "append", options);
  }

  /**
   * Ingests an Avro stream file as one snapshot. The table is declared with `avro.avroStreamArrowSchema`
   * (one row per point); a damaged file is refused whole, before anything is written.
   */
  async appendAvroStream(
    source: AvroSource,
    options: AvroStreamAppendOptions = {},
  ): Promise<AppendResult<Row>> {
    const { idempotencyKey, compression, keepRows = true, ...read } = options;
    if (compression !== undefined)
      checkParquetCompression(compression, `appendAvroStream(${this.identifier})`);
    const write = (rows: A.Table, memory?: ColumnMemory) =>
      this.#write(rows as AppendInput<In>, "append", {
        ...(idempotencyKey !== undefined && { idempotencyKey }),
        ...(compression !== undefined && { compression }),
        ...(memory && { memory }),
      });
    try {
      if (keepRows) return await write(await avroStreamToArrow(source, read));
      const memory = new ColumnMemory(decodedColumns);
      try {
        const rows = await avroStreamToArrowIn(source, read, memory);
        // Written and committed (or staged, its file encoded) once this settles: nothing reads `rows` after.
        return (await write(rows, memory)).withoutRows();
      } finally {
        memory.release();
      }
    } catch (err) {
      if (!isAvaError(err, "SCHEMA_MISMATCH")) throw err;
      throw new AvaError(
        "SCHEMA_MISMATCH",
        `${err.message}; appendAvroStream writes the columns of avro.avroStreamArrowSchema: declare the table ` +
          "with ava.table({ schema: ava.avro.avroStreamArrowSchema })",
        { cause: err },
      );
    }
  }

  /** Replaces every row with `data`, as one snapshot (earlier snapshots stay readable). */
  overwrite(data: AppendInput<In>): Promise<AppendResult<Row>> {
    return this.#write(data, "overwrite");
  }

  async #write(
    data: AppendInput<In>,
    operation: "append" | "overwrite",
    { idempotencyKey, compression, memory }: WriteOptions = {},
  ): Promise<AppendResult<Row>> {
    if (idempotencyKey !== undefined) checkIdempotencyKey(idempotencyKey, this.identifier, this.#tx);
    // A missing table or another schema: refused before any file is written.
    // A keyed append is first judged on the state this context holds (its own commits are in it): the common
    // re-send, to the process that committed the batch, is answered from it without I/O and writes nothing.
    // A key that another process committed since is refused by the commit itself (state.ts: COMMIT_CONFLICT),
    // answered below from the latest state — reading that state before every append cost an ingest server
    // two file probes per batch.
    const entry = await this.#state({ fresh: false });
    if (idempotencyKey !== undefined) {
      const earlier = entry.history.withIdempotencyKey(idempotencyKey);
      if (earlier) return this.#duplicate(data, earlier);
    }
    const schemaId = entry.schemas?.at(-1)?.id;
    const { user, stored, zod } = this.declaration.schema;
    const rows = coerceInput(data, { identifier: this.identifier, schema: user, zod });
    if (operation === "append" && rows.numRows === 0)
      throw new AvaError(
        "INVALID_ARGUMENT",
        `append to ${this.identifier}: no rows to append (an append of zero rows would only make an empty snapshot)`,
      );
    const table = this.declaration.rowLineage
      ? withProvenance(rows, stored, this.#run, nowMicros(), memory)
      : rows;
    const now = clockOf(this.#storage);
    const snapshotId = ulid(now);
    const addedFiles: DataFile[] = [];
    let written: Promise<void> = Promise.resolve();
    if (table.numRows > 0) {
      const { maxRows, maxBytes } = this.declaration.inline ?? INLINE_ON;
      // A small append rides in its catalog entry (no file to create); maintenance flushes it later.
      const payload = operation === "append" && table.numRows <= maxRows ? inlinePayload(table) : undefined;
      const inline = payload && payload.sizeBytes <= maxBytes ? payload : undefined;
      const folder = `data/${this.namespace}/${this.name}/${snapshotId}`;
      const path = inline ? `${folder}${INLINE_SUFFIX}` : `${folder}.parquet`;
      let sizeBytes = inline?.sizeBytes ?? 0;
      const stats = columnStats(table);
      if (!inline) {
        // Iceberg readers find columns by the Parquet field ids (else by the table's name mapping).
        const encoded = this.declaration.iceberg ? withParquetFieldIds(table, entry, this.identifier) : table;
        const { bytes, release } = await encodeParquetToWrite(
          encoded,
          compression === undefined ? {} : { compression },
        );
        sizeBytes = bytes.length;
        if (this.declaration.iceberg) withColumnSizes(stats, bytes); // for manifests' column_sizes
        // The data file is written while the catalog stages its entry; the commit waits for both.
        written = this.#storage.files.write(path, bytes);
        written.then(release, release);
      }
      const file: DataFile = { path, rowCount: table.numRows, sizeBytes, stats };
      if (inline) Object.assign(file, { inline: inline.inline, inlineCrc: inline.inlineCrc });
      if (schemaId) file.schemaId = schemaId; // read back under later versions by it
      addedFiles.push(file);
    }
    const draft: SnapshotDraft = { id: snapshotId, operation, timestampMs: now, addedFiles };
    if (operation === "overwrite") draft.removeAll = true;
    if (idempotencyKey !== undefined) draft.idempotencyKey = idempotencyKey;
    if (this.#run)
      Object.assign(draft, {
        runId: this.#run.runId,
        nodeSlug: this.#run.nodeSlug,
        workflowName: this.#run.workflowName,
      });
    if (this.#tx) {
      const snapshot = this.#tx.stage(this.namespace, this.name, draft, written);
      if (this.declaration.iceberg)
        this.#tx.afterCommit(`iceberg:${this.identifier}`, () => this.#afterCommit());
      this.#tx.afterCommit(`flush:${this.identifier}`, async () => this.#flushIfDue());
      return new AppendResult<Row>(this.identifier, snapshot, table, zod);
    }
    let committed: Snapshot;
    try {
      const result = await this.#storage.catalog.commit(
        [{ op: "commitSnapshot", namespace: this.namespace, table: this.name, snapshot: draft }],
        { dependsOn: written },
      );
      committed = result.snapshots[0]!;
    } catch (err) {
      // The commit did not happen: the file is unreferenced. Remove it now rather than leave it to vacuum.
      await written.catch(() => {});
      for (const f of addedFiles) await this.#storage.files.delete(f.path).catch(() => {});
      if (idempotencyKey !== undefined && isAvaError(err, "COMMIT_CONFLICT")) {
        // A concurrent copy of the same batch committed first: acknowledge that one.
        const earlier = (await this.#state()).history.withIdempotencyKey(idempotencyKey);
        if (earlier) return this.#duplicate(data, earlier);
      }
      throw toAvaError(err, `appending to ${this.identifier}`);
    }
    this.#flushIfDue();
    await this.#afterCommit();
    return new AppendResult<Row>(this.identifier, committed, table, zod);
  }

  /** Starts a background flush of the table's inlined appends when one is due (see inline-flush.ts). */
  #flushIfDue(): void {
    const { flush } = this.declaration.inline ?? INLINE_ON;
    flushInlinedIfDue(this.#storage, this.namespace, this.name, flush);
  }

  /** This context's background flushes of the table's inlined appends: how many ran, the last error. */
  get inlineFlush(): InlineFlushStatus {
    return inlineFlushStatus(this.#storage, this.namespace, this.name);
  }

  /**
   * Tables declared with `iceberg` get their Iceberg metadata brought up to date after each commit. The
   * commit has happened whatever this does: a failure is reported, not thrown (a throw would invite a
   * retry that appends twice), and the next commit or exportIceberg() writes what it missed.
   */
  async #afterCommit(): Promise<void> {
    const options = this.declaration.iceberg;
    if (!options) return;
    const done = exportIcebergAfterCommit(this.#storage, this.namespace, this.name, options).then(
      () => {},
      (err) =>
        console.warn(`avalanche-web: Iceberg metadata of ${this.identifier} not written: ${String(err)}`),
    );
    if (!options.background) await done;
  }

  /** The answer to an append whose idempotency key an earlier snapshot carries: nothing is written. */
  #duplicate(data: AppendInput<In>, earlier: Snapshot): AppendResult<Row> {
    const { user, zod } = this.declaration.schema;
    const rows = coerceInput(data, { identifier: this.identifier, schema: user, zod });
    return new AppendResult<Row>(this.identifier, earlier, rows, zod, true);
  }

  scan(options: ScanOptions<Row> = {}): Scan {
    const { columns, snapshotId, limit } = options;
    const filter =
      typeof options.filter === "function" ? options.filter(where as unknown as Where<Row>) : options.filter;
    return new Scan(
      {
        identifier: this.identifier,
        stored: this.schema,
        files: this.#storage.files,
        resolve: async () => {
          const { history, schemas: versions } = await this.#state();
          // Time travel reads an old snapshot with the current schema, as Impala and Hive do on Iceberg:
          // the rows keep the declared types, and files of any version project onto them.
          if (snapshotId === undefined)
            return { snapshot: history.current, liveFiles: [...history.liveFiles], versions };
          const index = this.#snapshotIndex(history, snapshotId);
          return {
            snapshot: history.snapshots[index],
            liveFiles: history.liveFilesAt(index),
            versions,
          };
        },
      },
      columns,
      filter,
      limit,
    );
  }

  /** The whole current snapshot (or `snapshotId`) as one Arrow table. */
  read(options: Omit<ScanOptions<Row>, "columns" | "filter"> = {}): Promise<A.Table> {
    return this.scan(options).toArrow();
  }

  /** Every row as a validated model (model tables only). */
  async readModels(options: Omit<ScanOptions<Row>, "columns"> = {}): Promise<Row[]> {
    return toModels<Row>(await this.scan(options).toObjects(), this.declaration.schema.zod, this.identifier);
  }

  /**
   * Calls `listener` once per snapshot committed to this table from now on — by this context, another
   * tab or Worker (BroadcastChannel), or another process (the catalog folder is watched) — in commit order.
   * Returns the unsubscribe function.
   */
  subscribe(listener: CommitListener): () => void {
    const { namespace, name } = this;
    return subscribeCommits(
      this.#storage,
      (ns, table) => ns === namespace && table === name,
      listener,
      this.identifier,
    );
  }

  /**
   * Merges small data files into files near `targetFileBytes`, as one "compact" snapshot that changes no
   * visible row (older snapshots keep reading their own files until they expire). See CompactOptions.
   */
  async compact(options?: CompactOptions): Promise<CompactResult> {
    await this.#state(); // NOT_FOUND, or SCHEMA_MISMATCH for a stale declaration: nothing is rewritten
    const result = await compactTable(this.#storage, this.namespace, this.name, options);
    await this.#afterCommit();
    return result;
  }

  /** Removes the table and its data in one commit (history, streams' progress and cursors too). */
  drop(): Promise<DropResult> {
    return dropTable(this.#storage, this.namespace, this.name);
  }

  /** Snapshots, oldest first. */
  async history(): Promise<Snapshot[]> {
    return [...(await this.#state()).history.snapshots];
  }

  /** The table's schema versions, oldest first (one per push that evolved it; snapshots name theirs). */
  async schemaVersions(): Promise<SchemaVersion[]> {
    return [...schemaVersionsOf(await this.#state())];
  }

  async currentSnapshot(): Promise<Snapshot | undefined> {
    return (await this.#state()).history.current;
  }

  async snapshot(id: string): Promise<Snapshot> {
    const { history } = await this.#state();
    return history.snapshots[this.#snapshotIndex(history, id)]!;
  }

  #snapshotIndex(history: TableHistory, id: string): number {
    const index = history.snapshots.findIndex((s) => s.id === id);
    if (index < 0) {
      // Snapshot ids are ULIDs: one minted no later than the newest expired snapshot may be one of them.
      const minted = ulidTimeMs(id);
      const base = history.base;
      if (base && minted !== undefined && minted <= base.lastTimestampMs)
        throw new AvaError(
          "NOT_FOUND",
          `table ${this.identifier} has no snapshot ${id}: it was expired by the table's retention (snapshots through sequence ${base.throughSequence}, committed up to ${new Date(base.lastTimestampMs).toISOString()}, were expired)`,
        );
      throw new AvaError("NOT_FOUND", `table ${this.identifier} has no snapshot ${id}`);
    }
    return index;
  }
}
