// `ava.cursor(table, { key })`: a manual checkpoint kept with `table` in the catalog. A node reads it with
// get(); it moves only inside `cursor.transaction(async (tx) => …)`, whose `tx.append(...)` rows commit
// in one catalog commit with the new value — or neither lands. A writer that read an older value than the
// one committed meanwhile gets COMMIT_CONFLICT.
import { AvaError } from "../errors.js";
import type { RunProvenance } from "../schema/provenance.js";
import { streamKey } from "../storage/catalog/state.js";
import type { Storage } from "../storage/types.js";
import type { AppendResult } from "../table/append-result.js";
import { type BoundTableDeclaration, isBoundTable } from "../table/declare.js";
import { type AppendInput, Table } from "../table/table.js";
import { Transaction } from "../table/transaction.js";
import { checkKey } from "../util/names.js";

export interface CursorProvider {
  readonly kind: "avalanche.cursor";
  readonly table: BoundTableDeclaration;
  readonly key: string;
}

/** In `inject`: the cursor `key` of `table` (a table of a namespace definition). */
export function cursor(table: BoundTableDeclaration, { key }: { key: string }): CursorProvider {
  if (!isBoundTable(table))
    throw new AvaError(
      "INVALID_ARGUMENT",
      "ava.cursor takes a table of a namespace definition, such as Def.tables.x",
    );
  checkKey(`ava.cursor on ${table.identifier}`, key);
  return Object.freeze({ kind: "avalanche.cursor" as const, table, key });
}

export function isCursorProvider(v: unknown): v is CursorProvider {
  return (v as CursorProvider | null)?.kind === "avalanche.cursor";
}

export interface CursorTransaction {
  /** Appends to the cursor's table; the rows commit with the cursor's new value. */
  append(data: AppendInput<unknown>): Promise<AppendResult<unknown>>;
  /** The cursor's new value, committed with the rows. */
  set(value: string): void;
}

export class Cursor {
  #open = false;
  #next: string | undefined;

  constructor(
    private readonly storage: Storage,
    readonly table: BoundTableDeclaration,
    readonly key: string,
    private readonly run: RunProvenance | undefined,
  ) {}

  /** The committed value; null before the first. */
  async get(): Promise<string | null> {
    const state = await this.storage.catalog.current();
    return state.cursors[streamKey(this.table.namespace, this.table.name, this.key)] ?? null;
  }

  /** Sets the value committed at the end of the enclosing transaction(); refused outside one. */
  set(value: string): void {
    if (!this.#open)
      throw new AvaError(
        "INVALID_ARGUMENT",
        `cursor ${this.key} of ${this.table.identifier}: set() is only allowed inside cursor.transaction(...)`,
      );
    if (typeof value !== "string")
      throw new AvaError("INVALID_ARGUMENT", `cursor ${this.key}: a value is a string, got ${typeof value}`);
    this.#next = value;
  }

  async transaction<T>(fn: (tx: CursorTransaction) => Promise<T>): Promise<T> {
    if (this.#open) throw new AvaError("INVALID_ARGUMENT", `cursor ${this.key}: transactions do not nest`);
    const expected = await this.get();
    const tx = new Transaction(this.storage);
    const table = new Table(this.storage, this.table, this.run, tx);
    this.#open = true;
    this.#next = undefined;
    try {
      const out = await fn({
        append: (data) => table.append(data as AppendInput<Record<string, unknown>>),
        set: (value) => this.set(value),
      });
      if (this.#next !== undefined)
        tx.include({
          op: "setCursor",
          namespace: this.table.namespace,
          table: this.table.name,
          key: this.key,
          value: this.#next,
          expected,
        });
      this.#open = false;
      await tx.commit();
      return out;
    } catch (err) {
      this.#open = false;
      await tx.abort();
      throw err;
    }
  }
}
