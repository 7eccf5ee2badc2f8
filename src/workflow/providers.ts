// Runtime providers: references while the DAG is built, resolved when the node runs (inline or in a
// worker). `ava.stream(table)` gives the rows the node's upstream nodes appended in this run, found by
// their provenance columns; `ava.modelStream.one | oneOrNone | all(table)` gives them as validated models.
// An AppendResult for the same table among the node's arguments is used as it is: no storage read.
import * as A from "apache-arrow";
import { AvaError } from "../errors.js";
import type { StreamState } from "../storage/catalog/model.js";
import type { Storage } from "../storage/types.js";
import { pendingOf, streamStateOf } from "../storage/catalog/state.js";
import { AppendResult } from "../table/append-result.js";
import { type BoundTableDeclaration, isBoundTable } from "../table/declare.js";
import { where } from "../table/predicate.js";
import { toModels, toObjects } from "../table/rows.js";
import { Scan } from "../table/scan.js";
import { Table, tableEntry } from "../table/table.js";
import { checkKey } from "../util/names.js";
import type { Transaction } from "../table/transaction.js";
import { requireStorage } from "./errors.js";
import type { NodeTask } from "./invoke.js";

export type Cardinality = "one" | "oneOrNone" | "all";

export interface StreamOptions {
  /** "run_scoped" (default): this run's rows from upstream nodes. "append_scan": a durable backlog. */
  mode?: "run_scoped" | "append_scan";
  /** append_scan: the consumer's name, `^[a-z][a-z0-9_]*$`; its progress is kept in the catalog. */
  key?: string;
  /** append_scan: pending snapshots taken by one run, oldest first (default 1). */
  maxSnapshots?: number;
  /** append_scan: failed attempts after which a snapshot is quarantined and skipped (default 5). */
  maxAttempts?: number;
}

export interface StreamProvider {
  readonly kind: "avalanche.stream";
  readonly table: BoundTableDeclaration;
  /** Set for model streams: validate rows as the table's zod models, with this cardinality. */
  readonly models?: Cardinality;
  readonly appendScan?: { key: string; maxSnapshots: number; maxAttempts: number };
}

export function appendScanOptions(identifier: string, options: StreamOptions): StreamProvider["appendScan"] {
  const mode = options.mode ?? "run_scoped";
  if (mode === "run_scoped") {
    if (options.key !== undefined)
      throw new AvaError("INVALID_ARGUMENT", `a run_scoped stream of ${identifier} takes no key`);
    return undefined;
  }
  if (mode !== "append_scan")
    throw new AvaError(
      "INVALID_ARGUMENT",
      `stream mode ${JSON.stringify(mode)}: use "run_scoped" or "append_scan"`,
    );
  const { maxSnapshots = 1, maxAttempts = 5 } = options;
  const key = checkKey(`append_scan on ${identifier}`, options.key);
  for (const [name, n] of [
    ["maxSnapshots", maxSnapshots],
    ["maxAttempts", maxAttempts],
  ] as const)
    if (!Number.isInteger(n) || n < 1)
      throw new AvaError(
        "INVALID_ARGUMENT",
        `append_scan on ${identifier}: ${name} must be a positive integer`,
      );
  return { key, maxSnapshots, maxAttempts };
}

function provider(
  table: BoundTableDeclaration,
  options: StreamOptions = {},
  models?: Cardinality,
): StreamProvider {
  if (!isBoundTable(table))
    throw new AvaError(
      "INVALID_ARGUMENT",
      "streams take a table of a namespace definition, such as Def.tables.documents",
    );
  const appendScan = appendScanOptions(table.identifier, options);
  return Object.freeze({
    kind: "avalanche.stream" as const,
    table,
    ...(models ? { models } : {}),
    ...(appendScan ? { appendScan } : {}),
  });
}

/**
 * In `inject`: the rows the node's upstream nodes appended to `table` in this run (provenance included);
 * with `{ mode: "append_scan", key }`, the rows of the oldest snapshot the consumer `key` has not
 * consumed — exactly once: the consumer's progress commits together with the node's own appends.
 */
export function stream(table: BoundTableDeclaration, options?: StreamOptions): StreamProvider {
  return provider(table, options);
}

/** In `inject`: the same rows as validated zod models (model tables only). */
export const modelStream = {
  one: (table: BoundTableDeclaration, options?: StreamOptions) => provider(table, options, "one"),
  oneOrNone: (table: BoundTableDeclaration, options?: StreamOptions) => provider(table, options, "oneOrNone"),
  all: (table: BoundTableDeclaration, options?: StreamOptions) => provider(table, options, "all"),
};

export function isStreamProvider(v: unknown): v is StreamProvider {
  return (v as StreamProvider | null)?.kind === "avalanche.stream";
}

/**
 * append_scan: the rows added by the oldest pending snapshots (up to maxSnapshots) after the consumer's
 * position. The move past them joins the node's transaction, so it commits with the node's appends; if
 * the node fails, an attempt is counted instead (and the snapshot quarantined at maxAttempts).
 */
export async function backlogRows(
  decl: BoundTableDeclaration,
  { key, maxSnapshots, maxAttempts }: NonNullable<StreamProvider["appendScan"]>,
  storage: Storage,
  tx: Transaction,
): Promise<{ rows: A.Table; snapshots: number }> {
  const state = await storage.catalog.current();
  const entry = tableEntry(state, decl); // NOT_FOUND, or SCHEMA_MISMATCH for a stale declaration
  const stream = streamStateOf(state.streams, decl.namespace, decl.name, key);
  const { position } = stream;
  const taken = pendingOf(entry.history.snapshots, stream).slice(0, maxSnapshots);
  if (taken.length === 0) return { rows: new A.Table(decl.schema.stored), snapshots: 0 };
  const first = taken[0]!;
  const progress = {
    op: "streamProgress",
    namespace: decl.namespace,
    table: decl.name,
    key,
    expectedPosition: position,
  } as const;
  const retried = taken.filter((s) => s.sequenceNumber <= position).map((s) => s.id);
  const through = taken.filter((s) => s.sequenceNumber > position).at(-1)?.sequenceNumber;
  tx.include(
    {
      ...progress,
      ...(through !== undefined ? { consumedThrough: through } : {}),
      ...(retried.length > 0 ? { retried } : {}),
    },
    { ...progress, failed: { snapshotId: first.id, sequenceNumber: first.sequenceNumber, maxAttempts } },
  );
  // Just the files those snapshots added, read and conformed to the stored schema like any scan.
  const addedFiles = taken.flatMap((s) => s.addedFiles);
  const rows = await new Scan({
    identifier: decl.identifier,
    stored: decl.schema.stored,
    files: storage.files,
    resolve: async () => ({ snapshot: taken.at(-1), liveFiles: addedFiles, versions: entry.schemas }),
  }).toArrow();
  return { rows, snapshots: taken.length };
}

async function streamRows(
  p: StreamProvider,
  task: NodeTask,
  args: readonly unknown[],
  storage: Storage | undefined,
  tx: Transaction | undefined,
): Promise<A.Table> {
  const decl = p.table;
  // A rerun overrides the mode (as in the original): every stream reads the source run's rows of its
  // upstream nodes, and an append_scan consumer's progress is left as it is.
  if (p.appendScan && !task.streamRuns) {
    const consumer = `append_scan on ${decl.identifier} in node ${task.slug}`;
    // A node run with storage always has its transaction (invokeStep opens one).
    return (await backlogRows(decl, p.appendScan, requireStorage(storage, consumer), tx!)).rows;
  }
  const context = `ava.stream(${decl.identifier}) in node ${task.slug}`;
  // An upstream AppendResult is the rows themselves: no provenance is needed to find them.
  const passed = args.filter(
    (a): a is AppendResult<unknown> => a instanceof AppendResult && a.table === decl.identifier,
  );
  if (passed.length === 1) return passed[0]!.data;
  if (!decl.rowLineage)
    throw new AvaError(
      "INVALID_ARGUMENT",
      `${context}: the table has rowLineage: false, and streams find rows by their _ava_* provenance columns (pass the upstream node's AppendResult instead)`,
    );
  const runStorage = requireStorage(storage, context);
  if (task.upstream.length === 0) return new A.Table(decl.schema.stored); // no upstream node: no rows
  // Files of other runs are pruned by their _ava_run_id statistics before any is read.
  const table = new Table(runStorage, decl);
  const bySlug = where.in("_ava_node_slug", task.upstream);
  if (!task.streamRuns)
    return table.scan({ filter: where.and(where.eq("_ava_run_id", task.runId), bySlug) }).toArrow();
  // A rerun: for each upstream node, the rows of the newest run that wrote any — this run's when the node
  // was rerun, else the source run's, else those of the run it reran, and so on.
  const runs = [task.runId, ...task.streamRuns];
  const seen = await table
    .scan({
      columns: ["_ava_node_slug", "_ava_run_id"],
      filter: where.and(where.in("_ava_run_id", runs), bySlug),
    })
    .toObjects();
  const newest = new Map<string, number>();
  for (const row of seen) {
    const rank = runs.indexOf(row._ava_run_id as string);
    const slug = row._ava_node_slug as string;
    if (rank < (newest.get(slug) ?? runs.length)) newest.set(slug, rank);
  }
  if (newest.size === 0) return new A.Table(decl.schema.stored);
  const pick = [...newest].map(([slug, rank]) =>
    where.and(where.eq("_ava_node_slug", slug), where.eq("_ava_run_id", runs[rank]!)),
  );
  return table.scan({ filter: where.or(...pick) }).toArrow();
}

/** Resolves a provider for the node described by `task` (whose positional arguments are `args`). */
export async function resolveProvider(
  p: StreamProvider,
  task: NodeTask,
  args: readonly unknown[],
  storage: Storage | undefined,
  tx: Transaction | undefined,
  consumed?: A.Table[],
): Promise<unknown> {
  const rows = await streamRows(p, task, args, storage, tx);
  consumed?.push(rows);
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

/** Where the append_scan consumer `key` of a table stands: position, attempts, quarantined snapshots. */
export async function streamState(
  storage: Storage,
  table: BoundTableDeclaration,
  key: string,
): Promise<StreamState> {
  const state = await storage.catalog.current();
  return streamStateOf(state.streams, table.namespace, table.name, key);
}

/**
 * What the rows a node consumed carry, merged into `vector`: for each node that wrote some, the run that
 * wrote them (the newest, when several, or than what `vector` holds), and those rows' own vectors.
 */
export function lineageOf(
  consumed: readonly A.Table[],
  vector: Record<string, string> = {},
): Record<string, string> {
  const note = (slug: string, run: string) => {
    if (!vector[slug] || vector[slug]! < run) vector[slug] = run;
  };
  for (const table of consumed) {
    const slugs = table.getChild("_ava_node_slug");
    const runs = table.getChild("_ava_run_id");
    const vectors = table.getChild("_ava_lineage_vector");
    if (!slugs || !runs) continue;
    const seen = new Set<string>();
    for (let i = 0; i < table.numRows; i++) {
      const slug = slugs.get(i) as string | null;
      const run = runs.get(i) as string | null;
      const inherited = vectors?.get(i) as string | null | undefined;
      const id = `${slug}\u0000${run}\u0000${inherited}`;
      if (seen.has(id)) continue; // rows of one node and run repeat the same three values
      seen.add(id);
      // "self" was written by versions before the vector named each node by its slug: not a node.
      if (inherited)
        for (const [k, v] of Object.entries(JSON.parse(inherited) as Record<string, string>))
          if (k !== "self") note(k, v);
      if (slug && run) note(slug, run);
    }
  }
  return vector;
}
