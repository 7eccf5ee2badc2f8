// Runtime providers: references while the DAG is built, resolved when the node runs (inline or in a
// worker). `ava.stream(table)` gives the rows the node's upstream nodes appended in this run, found by
// their provenance columns; `ava.modelStream.one | oneOrNone | all(table)` gives them as validated models.
// An AppendResult for the same table among the node's arguments is used as it is: no storage read.
import * as A from "apache-arrow";
import { AvaError } from "../errors.js";
import type { Storage } from "../storage/types.js";
import { AppendResult } from "../table/append-result.js";
import type { BoundTableDeclaration } from "../table/declare.js";
import { where } from "../table/predicate.js";
import { toModels, toObjects } from "../table/rows.js";
import { Table } from "../table/table.js";
import type { NodeTask } from "./invoke.js";

export type Cardinality = "one" | "oneOrNone" | "all";

export interface StreamProvider {
  readonly kind: "avalanche.stream";
  readonly table: BoundTableDeclaration;
  /** Set for model streams: validate rows as the table's zod models, with this cardinality. */
  readonly models?: Cardinality;
}

function provider(table: BoundTableDeclaration, models?: Cardinality): StreamProvider {
  if (table?.kind !== "avalanche.table" || !("identifier" in table))
    throw new AvaError(
      "INVALID_ARGUMENT",
      "streams take a table of a namespace definition, such as Def.tables.documents",
    );
  return Object.freeze(
    models ? { kind: "avalanche.stream", table, models } : { kind: "avalanche.stream", table },
  );
}

/** In `inject`: the rows the node's upstream nodes appended to `table` in this run (provenance included). */
export function stream(table: BoundTableDeclaration): StreamProvider {
  return provider(table);
}

/** In `inject`: the same rows as validated zod models (model tables only). */
export const modelStream = {
  one: (table: BoundTableDeclaration) => provider(table, "one"),
  oneOrNone: (table: BoundTableDeclaration) => provider(table, "oneOrNone"),
  all: (table: BoundTableDeclaration) => provider(table, "all"),
};

export function isStreamProvider(v: unknown): v is StreamProvider {
  return (v as StreamProvider | null)?.kind === "avalanche.stream";
}

async function streamRows(
  p: StreamProvider,
  task: NodeTask,
  args: readonly unknown[],
  storage: Storage | undefined,
): Promise<A.Table> {
  const decl = p.table;
  const context = `ava.stream(${decl.identifier}) in node ${task.slug}`;
  if (!decl.rowLineage)
    throw new AvaError(
      "INVALID_ARGUMENT",
      `${context}: the table has rowLineage: false, and streams find rows by their _ava_* provenance columns`,
    );
  const passed = args.filter(
    (a): a is AppendResult<unknown> => a instanceof AppendResult && a.table === decl.identifier,
  );
  if (passed.length === 1) return passed[0]!.data;
  if (!storage)
    throw new AvaError(
      "INVALID_ARGUMENT",
      `${context} needs the run's storage; pass { storage } to flow.run(...)`,
    );
  if (task.upstream.length === 0) return new A.Table(decl.schema.stored); // no upstream node: no rows
  // Files of other runs are pruned by their _ava_run_id statistics before any is read.
  const filter = where.and(where.eq("_ava_run_id", task.runId), where.in("_ava_node_slug", task.upstream));
  return new Table(storage, decl).scan({ filter }).toArrow();
}

/** Resolves a provider for the node described by `task` (whose positional arguments are `args`). */
export async function resolveProvider(
  p: StreamProvider,
  task: NodeTask,
  args: readonly unknown[],
  storage: Storage | undefined,
): Promise<unknown> {
  const rows = await streamRows(p, task, args, storage);
  if (!p.models) return rows;
  const context = `modelStream.${p.models}(${p.table.identifier}) in workflow ${task.workflowName}, run ${task.runId}, node ${task.slug} (fed by ${task.upstream.join(", ") || "no upstream node"})`;
  let models: unknown[];
  try {
    models = toModels(toObjects(rows), p.table.schema.zod, p.table.identifier);
  } catch (err) {
    throw new AvaError((err as AvaError).code ?? "SCHEMA_MISMATCH", `${context}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  if (p.models === "all") return models;
  if (models.length > 1 || (p.models === "one" && models.length === 0))
    throw new AvaError(
      "CARDINALITY",
      `${context}: expected ${p.models === "one" ? "exactly one row" : "at most one row"}, got ${models.length}`,
    );
  return models[0] ?? null;
}
