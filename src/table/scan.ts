// A scan of one snapshot of a table: plan (prune data files by their catalog stats), then stream record
// batches file by file, filtered exactly and projected. Nothing is read until a result is asked for.
import * as A from "apache-arrow";
import { AvaError } from "../errors.js";
import { decodeParquet } from "../parquet/parquet.js";
import { sameType } from "../schema/cast.js";
import type { DataFile, Snapshot } from "../storage/catalog/model.js";
import type { FileStore } from "../storage/types.js";
import { bindPredicate, matchingRows, mayMatch, type Predicate, predicateColumns } from "./predicate.js";
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
  /** Resolves the snapshot and its live files when the scan runs. */
  resolve(): Promise<{ snapshot: Snapshot | undefined; liveFiles: DataFile[] }>;
}

export class Scan {
  readonly #source: ScanSource;
  readonly #columns: readonly string[] | undefined;
  readonly #filter: Predicate | undefined;

  constructor(source: ScanSource, columns?: readonly string[], filter?: Predicate) {
    this.#source = source;
    this.#columns = columns;
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
    const { snapshot, liveFiles } = await this.#source.resolve();
    const filter = this.#filter;
    if (!filter) return { snapshot, files: liveFiles, prunedFiles: [] };
    const files: DataFile[] = [];
    const prunedFiles: DataFile[] = [];
    for (const f of liveFiles) (mayMatch(filter, f.stats, f.rowCount) ? files : prunedFiles).push(f);
    return { snapshot, files, prunedFiles };
  }

  async *batches(): AsyncGenerator<A.RecordBatch> {
    const { files } = await this.plan();
    const out = this.schema;
    const read = this.#columns && [
      ...new Set([...this.#columns, ...(this.#filter ? predicateColumns(this.#filter) : [])]),
    ];
    for (const file of files) {
      const table = await this.#readFile(file, read);
      const conform = conformer(table.schema, out, file);
      for (const batch of table.batches) {
        for (const piece of this.#select(batch)) yield conform(piece);
      }
    }
  }

  async #readFile(file: DataFile, columns: string[] | undefined): Promise<A.Table> {
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

/**
 * Projects a file's decoded batches onto the scan's schema. The file's schema is checked against the
 * catalog's once; each batch is then only re-labelled with the expected types (no data is copied).
 */
function conformer(
  decoded: A.Schema,
  schema: A.Schema,
  file: DataFile,
): (batch: A.RecordBatch) => A.RecordBatch {
  const columns = schema.fields.map((field) => {
    const index = decoded.fields.findIndex((f) => f.name === field.name);
    if (index < 0 || !sameType(decoded.fields[index]!.type, field.type)) {
      throw new AvaError(
        "DATA_CORRUPT",
        `data file ${file.path}: column "${field.name}" is missing or of another type`,
      );
    }
    return { index, type: field.type };
  });
  const struct = new A.Struct(schema.fields);
  return (batch) => {
    const children = columns.map(({ index, type }) => batch.data.children[index]!.clone(type));
    return new A.RecordBatch(
      schema,
      A.makeData({ type: struct, length: batch.numRows, nullCount: 0, children }),
    );
  };
}
