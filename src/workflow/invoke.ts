// Running one node's function: its upstream values as positional arguments, then — when the step declares
// `inject` — one object of injected values resolved now: tables opened on the run's storage and stamped
// with the run's provenance, the RunContext, the run input. The same code runs inline and in workers.
import type * as A from "apache-arrow";
import { AvaError } from "../errors.js";
import type { RunProvenance } from "../schema/provenance.js";
import type { Storage } from "../storage/types.js";
import type { BoundTableDeclaration } from "../table/declare.js";
import { Table } from "../table/table.js";
import { Transaction } from "../table/transaction.js";
import { isRunContextMarker, isRunInputMarker, type RunContext } from "./context.js";
import { Cursor, isCursorProvider } from "./cursor.js";
import { requireStorage } from "./errors.js";
import { createLogger, isLoggerMarker, type LogLine } from "./logger.js";
import { isStreamProvider, lineageOf, resolveProvider } from "./providers.js";
import type { StepDefinition } from "./step.js";

/** Everything a node needs to run, as plain data (it crosses into workers). */
export interface NodeTask {
  workflowName: string;
  runId: string;
  /** The invocation's slug (`inc_2` for a second call of `inc`). */
  slug: string;
  nodeId: string;
  nodeName: string;
  /** Slugs of the nodes this one waits for: whose rows its streams read. */
  upstream: string[];
  /** In a rerun: the run rerun, and the older runs whose rows streams fall back to, newest first. */
  rerunOf?: string;
  /** In a rerun: what was asked (given to the node's RunContext). */
  rerun?: { runId: string; start: string[]; mode: "autorun" | "lazy" };
  /** The executor's kind. */
  executor: string;
  streamRuns?: string[];
  args: unknown[];
  input: unknown;
  metadata: Record<string, unknown>;
  /** The lineage the node's argument values carry: slug -> run id of every node whose output reached it. */
  lineage: Record<string, string>;
}

/** What running a node gives the scheduler: its value and the lineage that value carries downstream. */
export interface NodeOutcome {
  value: unknown;
  lineage: Record<string, string>;
}

/** What a node reports while it runs. */
export interface NodeEvents {
  log?(line: LogLine): void;
}

function isTableDeclaration(v: unknown): v is BoundTableDeclaration {
  return typeof v === "object" && v !== null && (v as { kind?: unknown }).kind === "avalanche.table";
}

async function resolveInject(
  step: StepDefinition,
  task: NodeTask,
  context: RunContext,
  storage: Storage | undefined,
  tx: Transaction | undefined,
  events: NodeEvents,
  provenance: RunProvenance,
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const consumed: A.Table[] = [];
  for (const [key, value] of Object.entries(step.inject ?? {})) {
    if (isStreamProvider(value))
      out[key] = await resolveProvider(value, task, task.args, storage, tx, consumed);
    else if (isCursorProvider(value)) {
      const cursorStorage = requireStorage(storage, `step ${task.slug}: inject.${key} (a cursor)`);
      out[key] = new Cursor(cursorStorage, value.table, value.key, provenance);
    } else if (isRunContextMarker(value)) out[key] = context;
    else if (isRunInputMarker(value)) out[key] = task.input;
    else if (isLoggerMarker(value)) out[key] = createLogger(value.level, (line) => events.log?.(line));
    else if (isTableDeclaration(value)) {
      if (!("identifier" in value))
        throw new AvaError(
          "INVALID_ARGUMENT",
          `step ${task.slug}: inject.${key} is a table not bound to a namespace; inject Def.tables.${key} of a defineNamespace(...)`,
        );
      out[key] = new Table(
        requireStorage(storage, `step ${task.slug}: inject.${key}`),
        value,
        provenance,
        tx,
      );
    } else out[key] = value;
  }
  // Tables injected above hold this provenance object: their rows carry what the streams consumed too.
  provenance.lineageVector = nodeLineage(task, consumed);
  return out;
}

/**
 * The node's lineage vector (the original's context lineage): what its argument values carry, merged with
 * what the rows its streams consumed carry, plus its own slug with this run's id. JSON keys sorted.
 */
function nodeLineage(task: NodeTask, consumed: readonly A.Table[]): Record<string, string> {
  const merged = lineageOf(consumed, { ...task.lineage });
  merged[task.slug] = task.runId;
  return Object.fromEntries(
    Object.keys(merged)
      .sort()
      .map((k) => [k, merged[k]!]),
  );
}

export async function invokeStep(
  step: StepDefinition,
  task: NodeTask,
  { storage, signal }: { storage: Storage | undefined; signal: AbortSignal },
  events: NodeEvents = {},
): Promise<NodeOutcome> {
  const context: RunContext = {
    runId: task.runId,
    workflowName: task.workflowName,
    nodeId: task.nodeId,
    nodeName: task.nodeName,
    nodeSlug: task.slug,
    metadata: task.metadata,
    executor: task.executor,
    ...(task.rerun ? { rerun: task.rerun } : {}),
    signal,
  };
  // The node's appends commit together when it returns, or not at all when it throws.
  const tx = storage ? new Transaction(storage) : undefined;
  const provenance: RunProvenance = {
    runId: task.runId,
    workflowName: task.workflowName,
    nodeId: task.nodeId,
    nodeName: task.nodeName,
    nodeSlug: task.slug,
    lineageVector: nodeLineage(task, []),
    metadata: task.metadata,
  };
  if (task.rerunOf) provenance.rerunOf = task.rerunOf;
  let value: unknown;
  try {
    const args = step.inject
      ? [...task.args, await resolveInject(step, task, context, storage, tx, events, provenance)]
      : task.args;
    value = await (step.fn as (...a: unknown[]) => unknown)(...args);
    if (step.numReturns > 1 && !(Array.isArray(value) && value.length === step.numReturns)) {
      throw new AvaError(
        "INVALID_ARGUMENT",
        `step ${task.slug} declares numReturns ${step.numReturns} but returned ${Array.isArray(value) ? `${value.length} values` : "no array"}`,
      );
    }
  } catch (err) {
    await tx?.abort();
    throw err;
  }
  await tx?.commit();
  return { value, lineage: provenance.lineageVector };
}
