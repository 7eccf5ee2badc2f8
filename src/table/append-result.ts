// What an append returns: the snapshot it committed and the rows it wrote, with their provenance columns.
import type * as A from "apache-arrow";
import type { z } from "zod";
import { AvaError } from "../errors.js";
import type { Snapshot } from "../storage/catalog/model.js";
import { toModels, toObjects } from "./rows.js";

export class AppendResult<Row> {
  constructor(
    /** "namespace.table" */
    readonly table: string,
    readonly snapshot: Snapshot,
    /** The rows appended, as stored (provenance columns included). */
    readonly data: A.Table,
    private readonly zod: z.ZodObject | undefined,
    /**
     * True when the append's idempotency key was already committed: nothing was written now, `snapshot` is
     * the earlier one, and `data` the rows given this time (without provenance columns).
     */
    readonly duplicate = false,
  ) {}

  /** Set by `withoutRows`: how many rows were appended (`data` is then empty). */
  #rowsNotKept: number | undefined;

  /**
   * This result without its rows (`data` empty, `toArrow()` and the like refuse): for an append whose rows
   * live in memory that is reused afterwards (appendAvroStream with keepRows: false).
   */
  withoutRows(): AppendResult<Row> {
    const result = new AppendResult<Row>(
      this.table,
      this.snapshot,
      this.data.slice(0, 0),
      this.zod,
      this.duplicate,
    );
    result.#rowsNotKept = this.rowCount;
    return result;
  }

  get snapshotId(): string {
    return this.snapshot.id;
  }

  get rowCount(): number {
    return this.#rowsNotKept ?? this.data.numRows;
  }

  toArrow(): A.Table {
    return this.#kept();
  }

  toObjects(): Record<string, unknown>[] {
    return toObjects(this.#kept());
  }

  #kept(): A.Table {
    if (this.#rowsNotKept !== undefined)
      throw new AvaError(
        "INVALID_ARGUMENT",
        `the append to ${this.table} (snapshot ${this.snapshotId}) kept no rows (keepRows: false): read them back with a scan`,
      );
    return this.data;
  }

  /** Validated models; model tables only. */
  toModels(): Row[] {
    return toModels<Row>(this.toObjects(), this.zod, this.table);
  }

  /** The only row appended (a model for model tables, else an object); CARDINALITY otherwise. */
  one(): Row {
    const row = this.oneOrNone();
    if (row === null) throw this.#cardinality("exactly one");
    return row;
  }

  oneOrNone(): Row | null {
    if (this.rowCount > 1) throw this.#cardinality("at most one");
    if (this.rowCount === 0) return null;
    return (this.zod ? this.toModels() : this.toObjects())[0] as Row;
  }

  #cardinality(expected: string): AvaError {
    return new AvaError(
      "CARDINALITY",
      `expected ${expected} row from the append to ${this.table} (snapshot ${this.snapshotId}), got ${this.rowCount}`,
    );
  }
}
