// `ava.consume(table, { key }, fn)`: an append_scan consumer outside workflows (the original's
// consume_stream), for pages and scripts that process new rows without a DAG. `fn` gets the rows of the
// oldest pending snapshots; what it appends through `tx` commits in one catalog commit with the
// consumer's progress — exactly once, as in a workflow node. When `fn` throws, nothing lands and an
// attempt is counted (the snapshot is quarantined after maxAttempts).
import type * as A from "apache-arrow";
import { AvaError } from "../errors.js";
import type { AppendResult } from "../table/append-result.js";
import type { BoundTableDeclaration } from "../table/declare.js";
import { type AppendInput, Table } from "../table/table.js";
import { Transaction } from "../table/transaction.js";
import { appendScanOptions, backlogRows, type StreamOptions } from "./providers.js";

export interface ConsumeTransaction {
  /** Appends to `table` (on the consumed table's storage); the rows commit with the consumer's progress. */
  append<Row, In>(table: Table<Row, In>, data: AppendInput<In>): Promise<AppendResult<Row>>;
}

export interface ConsumeResult<T> {
  /** Snapshots consumed (0 when nothing was pending: `fn` was not called). */
  snapshots: number;
  rows: number;
  /** What `fn` returned. */
  value: T | undefined;
}

export type ConsumeOptions = Omit<StreamOptions, "mode"> & { key: string };

export async function consume<T, Row, In>(
  table: Table<Row, In>,
  options: ConsumeOptions,
  fn: (rows: A.Table, tx: ConsumeTransaction) => Promise<T> | T,
): Promise<ConsumeResult<T>> {
  if (!(table instanceof Table))
    throw new AvaError("INVALID_ARGUMENT", "ava.consume takes an opened table, such as ns.readings");
  if (typeof fn !== "function")
    throw new AvaError("INVALID_ARGUMENT", `ava.consume on ${table.identifier}: fn is not a function`);
  const scan = appendScanOptions(table.identifier, { ...options, mode: "append_scan" })!;
  const storage = table.storage;
  const tx = new Transaction(storage);
  // Reading the backlog stages nothing on failure, so no abort (and no counted attempt) is owed for it.
  const { rows, snapshots } = await backlogRows(
    table.declaration as BoundTableDeclaration,
    scan,
    storage,
    tx,
  );
  if (snapshots === 0) return { snapshots: 0, rows: 0, value: undefined };
  let value: T;
  try {
    value = await fn(rows, {
      append: (target, data) => {
        if (target.storage !== storage)
          throw new AvaError(
            "INVALID_ARGUMENT",
            `ava.consume on ${table.identifier}: ${target.identifier} is on another storage; appends must share the consumer's commit`,
          );
        return target.inTransaction(tx).append(data);
      },
    });
  } catch (err) {
    await tx.abort();
    throw err;
  }
  await tx.commit();
  return { snapshots, rows: rows.numRows, value };
}
