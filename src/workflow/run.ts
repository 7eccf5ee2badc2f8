// A run: nodes start as soon as everything they wait for has succeeded, up to the executor's concurrency.
// A failed node fails the run; what depends on it does not run ("not_run"), independent branches finish.
// cancel() starts nothing new and aborts the signal running nodes see. The catalog of the run's storage
// records the run when it starts and when it ends.
import { AvaError } from "../errors.js";
import type { ErrorInfo as RunErrorInfo, RunRecord, RunStatus } from "../storage/catalog/model.js";
import type { Storage } from "../storage/types.js";
import { ulid } from "../util/ids.js";
import type { Invocation } from "./build.js";
import { isRunInputMarker, isSkip } from "./context.js";
import { toErrorInfo } from "./errors.js";
import { type Executor, inlineExecutor } from "./executor.js";
import type { NodeOutcome, NodeTask } from "./invoke.js";
import { type LogLine, MAX_LOG_LINES } from "./logger.js";
import { planRerun, type RerunSpec } from "./rerun.js";
import { type NodeResult, RunHandle } from "./run-handle.js";
import type { Workflow } from "./workflow.js";

export interface RunOptions {
  /** Where injected tables live and where the run is recorded. Optional for workflows that touch none. */
  storage?: Storage;
  /** Default: inlineExecutor(). */
  executor?: Executor;
  /** Handed to nodes that inject `ava.runInput()`; must be structured-cloneable for worker executors. */
  input?: unknown;
  /** Default: a new ULID. */
  runId?: string;
  /** Run again part of an earlier run (recorded in `storage`): `ava.rerun({ runId, start, mode })`. */
  rerun?: RerunSpec;
  /** Recorded with the run and given to every node's RunContext. */
  metadata?: Record<string, unknown>;
  /** Called as nodes start and end (the original's RunHooks); a hook's own failure is ignored, like `on()`'s. */
  hooks?: RunHooks;
  /**
   * How long the run's record stays `running` without a renewal (renewed every quarter of it while the run
   * lives); a record whose process died is then listed as `abandoned`. Default 2 minutes.
   */
  leaseMs?: number;
}

const DEFAULT_LEASE_MS = 120_000;

/** Which node of which run a hook is told about. */
export interface NodeHookInfo {
  runId: string;
  workflowName: string;
  slug: string;
  nodeId: string;
}

export interface RunHooks {
  onNodeStart?(node: NodeHookInfo): void;
  onNodeSuccess?(node: NodeHookInfo & { status: "success" | "skipped"; durationMs: number }): void;
  onNodeFailure?(node: NodeHookInfo & { status: "failed" | "cancelled"; error: RunErrorInfo }): void;
}

const RUN_ID = /^[A-Za-z0-9_.:-]{1,256}$/;

function pick(value: unknown, index: number | undefined): unknown {
  if (index === undefined || isSkip(value)) return value;
  return (value as unknown[])[index];
}

export function startRun<T>(workflow: Workflow<T>, options: RunOptions): RunHandle<T> {
  const runId = options.runId ?? ulid();
  if (typeof runId !== "string" || !RUN_ID.test(runId))
    throw new AvaError(
      "INVALID_ARGUMENT",
      `runId ${JSON.stringify(runId)}: use 1-256 letters, digits, _ . : or -`,
    );
  const metadata = options.metadata ?? {};
  const input = workflow.parseInput(options.input);
  const hooks = options.hooks ?? {};
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  if (typeof leaseMs !== "number" || !(leaseMs >= 100))
    throw new AvaError("INVALID_ARGUMENT", `leaseMs must be a number of at least 100, got ${leaseMs}`);
  const executor = options.executor ?? inlineExecutor();
  const kind = executor.kind ?? "custom";
  const storage = options.storage;
  const nodes = workflow.nodes;
  return new RunHandle<T>(runId, nodes.length, async (handle) => {
    const startedMs = Date.now();
    const results: Record<string, NodeResult> = {};
    for (const n of nodes)
      results[n.slug] = {
        slug: n.slug,
        nodeId: n.nodeId,
        name: n.step.name,
        role: n.step.role,
        status: "not_run",
      };
    // A rerun is planned (and refused, if a rerun node needs a value that will not exist) before anything runs.
    const plan = options.rerun ? await planRerun(workflow, options.rerun, storage) : undefined;
    const runs = (n: Invocation) => !plan || plan.selected.has(n);
    const record = (status: RunStatus, finishedMs?: number): RunRecord => {
      const run: RunRecord = { runId, workflowName: workflow.name, status, startedMs, metadata, nodes: {} };
      for (const [slug, { slug: _, durationMs: __, ...node }] of Object.entries(results))
        run.nodes[slug] = node;
      if (finishedMs !== undefined) run.finishedMs = finishedMs;
      else run.leaseUntilMs = Date.now() + leaseMs;
      if (plan) run.rerunOf = plan.rerunOf;
      return run;
    };
    if (storage) await storage.catalog.commit([{ op: "recordRun", run: record("running"), create: true }]);
    // The heartbeat: renewals are chained, and the last is awaited before the final record is committed.
    let beat: Promise<unknown> = Promise.resolve();
    const heartbeat =
      storage &&
      setInterval(() => {
        beat = beat
          .then(() => storage.catalog.commit([{ op: "recordRun", run: record("running") }]))
          .catch(() => {});
      }, leaseMs / 4);
    // Whatever ends the run (an error thrown below included), no timer may keep renewing it or the process.
    const stopHeartbeat = async () => {
      clearInterval(heartbeat);
      await beat;
    };
    try {
      const values = new Map<Invocation, unknown>();
      // The lineage each node's value carries downstream (the original's LineagedResult).
      const lineages = new Map<Invocation, Record<string, string>>();
      const byIndex = new Map(nodes.map((n) => [n.index, n]));
      // Nodes a rerun leaves out count as done for those that wait on them (by order; values they never
      // give were refused by the plan).
      const waiting = new Map(nodes.map((n) => [n, [...n.after].filter(runs).length]));
      const downstream = new Map<Invocation, Invocation[]>(nodes.map((n) => [n, []]));
      for (const n of nodes) for (const before of n.after) downstream.get(before)!.push(n);
      const ready = nodes.filter((n) => runs(n) && waiting.get(n) === 0);
      // How many arguments still to hand over use each node's value; the run's output keeps its own.
      const uses = new Map<Invocation, number>();
      for (const n of nodes)
        for (const a of n.args) {
          if (a.kind !== "future") continue;
          const upstream = byIndex.get(a.node)!;
          uses.set(upstream, (uses.get(upstream) ?? 0) + 1);
        }
      workflow.resolveOutput((n) => uses.set(n, Number.POSITIVE_INFINITY));
      const signal = handle.signal;
      let running = 0;
      let done = 0;

      await new Promise<void>((allSettled) => {
        const pump = () => {
          while (!signal.aborted && running < executor.concurrency && ready.length > 0)
            launch(ready.shift()!);
          if (running === 0) allSettled();
        };
        const launch = (node: Invocation) => {
          running++;
          const result = results[node.slug]!;
          result.startedMs = Date.now();
          const t0 = performance.now();
          handle.emit({ type: "node-started", slug: node.slug, done, total: nodes.length });
          const info: NodeHookInfo = {
            runId,
            workflowName: workflow.name,
            slug: node.slug,
            nodeId: node.nodeId,
          };
          callHook(() => hooks.onNodeStart?.(info));
          const task: NodeTask = {
            workflowName: workflow.name,
            runId,
            slug: node.slug,
            nodeId: node.nodeId,
            nodeName: node.step.name,
            upstream: [...node.after].map((n) => n.slug),
            ...(plan
              ? { rerunOf: plan.rerunOf, streamRuns: plan.chain, rerun: rerunOfSpec(options.rerun!) }
              : {}),
            executor: kind,
            args: node.args.map((a) =>
              a.kind === "future"
                ? pick(values.get(byIndex.get(a.node)!), a.index)
                : isRunInputMarker(a.value)
                  ? input
                  : a.value,
            ),
            input,
            metadata,
            lineage: argumentLineage(node, byIndex, lineages),
          };
          // An argument whose value no later node and not the output needs may move (buffers transferred).
          const movable = node.args.map((a) => {
            if (a.kind !== "future") return false;
            const upstream = byIndex.get(a.node)!;
            const left = uses.get(upstream)! - 1;
            uses.set(upstream, left);
            if (left === 0) values.delete(upstream);
            return left === 0;
          });
          const log = (line: LogLine) => {
            const kept = result.logs ?? [];
            result.logs = kept;
            if (kept.length < MAX_LOG_LINES) kept.push(line);
            else result.droppedLogs = (result.droppedLogs ?? 0) + 1;
            handle.emit({ type: "log", slug: node.slug, line });
          };
          let run: Promise<NodeOutcome>;
          try {
            run = executor.runNode({ workflow, storage }, task, signal, movable, { log });
          } catch (err) {
            run = Promise.reject(err);
          }
          run
            .then(
              ({ value, lineage }) => {
                values.set(node, value);
                lineages.set(node, lineage);
                result.status = isSkip(value) ? "skipped" : "success";
                for (const next of downstream.get(node)!) {
                  const left = waiting.get(next)! - 1;
                  waiting.set(next, left);
                  if (left === 0 && runs(next)) ready.push(next);
                }
              },
              (err) => {
                result.status = signal.aborted ? "cancelled" : "failed";
                result.error = toErrorInfo(err);
              },
            )
            .finally(() => {
              result.finishedMs = Date.now();
              result.durationMs = performance.now() - t0;
              const { status, error, durationMs } = result;
              if (status === "success" || status === "skipped")
                callHook(() => hooks.onNodeSuccess?.({ ...info, status, durationMs }));
              else if (status === "failed" || status === "cancelled")
                callHook(() => hooks.onNodeFailure?.({ ...info, status, error: error! }));
              running--;
              done++;
              handle.emit({
                type: "node-finished",
                slug: node.slug,
                status: result.status,
                done,
                total: nodes.length,
              });
              pump();
            });
        };
        pump();
      });

      const failed = Object.values(results).some((r) => r.status === "failed");
      if (signal.aborted)
        for (const r of Object.values(results)) if (r.status === "not_run") r.status = "cancelled";
      const status = failed ? "failed" : signal.aborted ? "cancelled" : "success";
      const finishedMs = Date.now();
      await stopHeartbeat();
      if (storage) await storage.catalog.commit([{ op: "recordRun", run: record(status, finishedMs) }]);
      handle.emit({ type: "run-finished", status, done, total: nodes.length });
      return {
        runId,
        workflowName: workflow.name,
        status,
        value: status === "success" ? workflow.resolveOutput((n, i) => pick(values.get(n), i)) : undefined,
        nodes: results,
        startedMs,
        finishedMs,
      };
    } finally {
      clearInterval(heartbeat);
    }
  });
}

function callHook(call: () => void): void {
  try {
    const returned = call() as unknown;
    if (returned instanceof Promise) returned.catch(() => {});
  } catch {
    // a hook's failure is not the run's
  }
}

function rerunOfSpec(spec: RerunSpec): NonNullable<NodeTask["rerun"]> {
  return { runId: spec.runId, start: [...spec.start], mode: spec.mode };
}

/** What a node's argument values carry, merged in argument order (a later producer wins a conflict). */
function argumentLineage(
  node: Invocation,
  byIndex: ReadonlyMap<number, Invocation>,
  lineages: ReadonlyMap<Invocation, Record<string, string>>,
): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const a of node.args)
    if (a.kind === "future") Object.assign(merged, lineages.get(byIndex.get(a.node)!));
  return merged;
}
