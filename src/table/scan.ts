// A scan of one snapshot of a table: plan (prune data files by their catalog stats), then stream record
// batches file by file, filtered exactly and projected. Nothing is read until a result is asked for.
import * as A from "apache-arrow";
import { AvaError } from "../errors.js";
import { decodeParquet } from "../parquet/parquet.js";
import type { DataFile, SchemaVersion, Snapshot } from "../storage/catalog/model.js";
import type { FileStore } from "../storage/types.js";
import { conformer, type FileProjection, SchemaLayout } from "./file-layout.js";
import { bindPredicate, matchingRows, mayMatch, type Predicate, predicateColumns } from "./predicate.js";
import { inlineTable } from "./inline-data.js";
import { toObjects } from "./rows.js";

export interface ScanPlan {
  /** The snapshot scanned; undefined for a table with no snapshot yet. */
  snapshot: Snapshot | undefined;
  /** Files that may hold matching rows, in commit order. */
  files: DataFile[];
  /** Files the statistics ruled out. */
  prunedFiles: DataFile[];
}

export interface ScanSource {
  identifier: string;
  stored: A.Schema;
  files: FileStore;
  /**
   * Resolves the snapshot and its live files when the scan runs, with the table's schema versions when
   * it has several (files of older versions are read as the current one; see SchemaLayout).
   */
  resolve(): Promise<{
    snapshot: Snapshot | undefined;
    liveFiles: DataFile[];
    versions?: readonly SchemaVersion[] | undefined;
  }>;
}

export class Scan {
  readonly #source: ScanSource;
  readonly #columns: readonly string[] | undefined;
  readonly #filter: Predicate | undefined;
  readonly #limit: number;

  constructor(source: ScanSource, columns?: readonly string[], filter?: Predicate, limit?: number) {
    if (limit !== undefined && !(Number.isSafeInteger(limit) && limit >= 0))
      throw new AvaError(
        "INVALID_ARGUMENT",
        `scan of ${source.identifier}: limit must be a whole number of rows ≥ 0, got ${String(limit)}`,
      );
    this.#source = source;
    this.#columns = columns;
    this.#limit = limit ?? Number.POSITIVE_INFINITY;
    this.#filter = filter && bindPredicate(filter, source.stored, source.identifier);
    for (const c of columns ?? []) {
      if (!source.stored.fields.some((f) => f.name === c)) {
        throw new AvaError("NOT_FOUND", `column "${c}" is not in table ${source.identifier}`);
      }
    }
  }

  /** The schema of the rows this scan yields. */
  get schema(): A.Schema {
    const { stored } = this.#source;
    return this.#columns
      ? new A.Schema(this.#columns.map((c) => stored.fields.find((f) => f.name === c)!))
      : stored;
  }

  async plan(): Promise<ScanPlan> {
    const { layout: _, ...plan } = await this.#plan();
    return plan;
  }

  async #plan(): Promise<ScanPlan & { layout: SchemaLayout }> {
    const { snapshot, liveFiles, versions } = await this.#source.resolve();
    const layout = new SchemaLayout(versions, this.#source.stored);
    const filter = this.#filter;
    if (!filter) return { snapshot, files: liveFiles, prunedFiles: [], layout };
    const files: DataFile[] = [];
    const prunedFiles: DataFile[] = [];
    for (const f of liveFiles) (mayMatch(filter, layout.stats(f), f.rowCount) ? files : prunedFiles).push(f);
    return { snapshot, files, prunedFiles, layout };
  }

  async *batches(): AsyncGenerator<A.RecordBatch> {
    let left = this.#limit;
    if (left === 0) return; // nothing is read
    const { files, layout } = await this.#plan();
    const { stored } = this.#source;
    const out = this.schema;
    // The columns read: the projected ones and those the filter needs (dropped again after filtering).
    const read = this.#columns && [
      ...new Set([...this.#columns, ...(this.#filter ? predicateColumns(this.#filter) : [])]),
    ];
    const readSchema = read
      ? new A.Schema(read.map((c) => stored.fields.find((f) => f.name === c)!))
      : stored;
    const keep = out.fields.map((f) => readSchema.fields.findIndex((g) => g.name === f.name));
    const project = (b: A.RecordBatch) =>
      readSchema === out
        ? b
        : new A.RecordBatch(
            out,
            A.makeData({
              type: new A.Struct(out.fields),
              length: b.numRows,
              nullCount: 0,
              children: keep.map((i) => b.data.children[i]!),
            }),
          );
    // Flushed inlined files of one flush share its file: it is read once per scan, not once per slice.
    const flushed = new Map<string, Promise<A.Table>>();
    for (const file of files) {
      const projection = layout.projection(file);
      const table = await this.#readFile(file, read, projection, flushed);
      const conform = conformer(table.schema, readSchema, file, projection);
      for (const batch of table.batches) {
        for (const piece of this.#select(conform(batch))) {
          // Files are read in commit order and stop being read once `limit` rows were yielded.
          const kept = piece.numRows <= left ? piece : piece.slice(0, left);
          left -= kept.numRows;
          yield project(kept);
          if (left === 0) return;
        }
      }
    }
  }

  async #readFile(
    file: DataFile,
    read: string[] | undefined,
    projection: FileProjection | undefined,
    flushed: Map<string, Promise<A.Table>>,
  ): Promise<A.Table> {
    // An older file's columns under their names in that file; those it predates are not read at all.
    const columns =
      read && projection
        ? read.flatMap((c) => {
            const source = projection.get(c);
            return source && "name" in source ? [source.name] : [];
          })
        : read;
    if (columns?.length === 0) {
      const empty = new A.Schema([]);
      const data = A.makeData({ type: new A.Struct([]), length: file.rowCount, nullCount: 0, children: [] });
      return new A.Table(empty, file.rowCount > 0 ? [new A.RecordBatch(empty, data)] : []);
    }
    if (file.flushedTo) {
      // Inlined rows since flushed: their slice of the flushed file (same schema version, same columns).
      const { path, rowCount, sizeBytes, offset } = file.flushedTo;
      const key = `${path}\n${columns?.join("\n") ?? "*"}`;
      let whole = flushed.get(key);
      if (!whole) {
        whole = this.#readFile({ path, rowCount, sizeBytes, stats: {} }, read, projection, flushed);
        flushed.set(key, whole);
      }
      return (await whole).slice(offset, offset + file.rowCount);
    }
    if (file.inline !== undefined) {
      // Inlined rows: an Arrow IPC stream in the catalog entry, nothing to fetch or decode as Parquet.
      const table = inlineTable(file);
      return columns ? table.select(columns) : table;
    }
    let bytes: Uint8Array;
    try {
      bytes = await this.#source.files.read(file.path);
    } catch (cause) {
      throw new AvaError(
        "NOT_FOUND",
        `data file ${file.path} of table ${this.#source.identifier} cannot be read: ${String((cause as Error).message ?? cause)}`,
        { cause },
      );
    }
    // What is cheap to check before decoding: a file of another size is not the one the catalog recorded
    // (swapped, truncated or appended to), whatever it decodes to.
    if (bytes.length !== file.sizeBytes) {
      throw new AvaError(
        "DATA_CORRUPT",
        `data file ${file.path} of table ${this.#source.identifier} is ${bytes.length} bytes; the catalog recorded ${file.sizeBytes}`,
      );
    }
    // One record batch per file: parquet-wasm's default of 1024 rows doubled the cost of a scan.
    const batchSize = Math.max(1, file.rowCount);
    const table = await decodeParquet(bytes, { path: file.path, batchSize, ...(columns ? { columns } : {}) });
    if (table.numRows !== file.rowCount) {
      throw new AvaError(
        "DATA_CORRUPT",
        `data file ${file.path} holds ${table.numRows} rows; the catalog recorded ${file.rowCount}`,
      );
    }
    return table;
  }

  /** Contiguous runs of matching rows, as zero-copy slices. */
  *#select(batch: A.RecordBatch): Generator<A.RecordBatch> {
    if (!this.#filter) {
      yield batch;
      return;
    }
    const mask = matchingRows(this.#filter, batch);
    let start = -1;
    for (let i = 0; i <= mask.length; i++) {
      if (i < mask.length && mask[i]) {
        if (start < 0) start = i;
      } else if (start >= 0) {
        yield batch.slice(start, i);
        start = -1;
      }
    }
  }

  async toArrow(): Promise<A.Table> {
    const batches: A.RecordBatch[] = [];
    for await (const b of this.batches()) batches.push(b);
    return new A.Table(this.schema, batches);
  }

  async toObjects(): Promise<Record<string, unknown>[]> {
    return toObjects(await this.toArrow());
  }
}
