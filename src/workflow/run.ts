// A run: nodes start as soon as everything they wait for has succeeded, up to the executor's concurrency.
// A failed node fails the run; what depends on it does not run ("not_run"), independent branches finish.
// cancel() starts nothing new and aborts the signal running nodes see. The catalog of the run's storage
// records the run when it starts and when it ends.
import { AvaError } from "../errors.js";
import type {
  ErrorInfo as RunErrorInfo,
  NodeRecord,
  NodeStatus,
  RunRecord,
  RunStatus,
} from "../storage/catalog/model.js";
import type { Storage } from "../storage/types.js";
import { ulid } from "../util/ids.js";
import type { Invocation } from "./build.js";
import { isRunInputMarker, isSkip } from "./context.js";
import { fromErrorInfo, toErrorInfo } from "./errors.js";
import { type Executor, inlineExecutor } from "./executor.js";
import type { NodeTask } from "./invoke.js";
import { planRerun, type RerunSpec } from "./rerun.js";
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
}

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

export interface NodeResult extends NodeRecord {
  slug: string;
  durationMs?: number;
}

export interface RunResult<T = unknown> {
  runId: string;
  workflowName: string;
  status: Exclude<RunStatus, "running">;
  /** The builder's output with every future replaced by its value (undefined unless the run succeeded). */
  value: T | undefined;
  nodes: Record<string, NodeResult>;
  startedMs: number;
  finishedMs: number;
}

export type RunEvent =
  | { type: "node-started"; slug: string; done: number; total: number }
  | { type: "node-finished"; slug: string; status: NodeStatus; done: number; total: number }
  | { type: "run-finished"; status: Exclude<RunStatus, "running">; done: number; total: number };

/** The AvaError a failed or cancelled run's result() rejects with. */
export interface RunError<T = unknown> extends AvaError {
  result: RunResult<T>;
}

const RUN_ID = /^[A-Za-z0-9_.:-]{1,256}$/;

export class RunHandle<T = unknown> {
  readonly #listeners = new Set<(e: RunEvent) => void>();
  readonly #abort = new AbortController();
  readonly #result: Promise<RunResult<T>>;
  #done = 0;
  #finished = false;
  #cancelled = false;

  constructor(
    readonly runId: string,
    readonly total: number,
    run: (handle: RunHandle<T>) => Promise<RunResult<T>>,
  ) {
    // Started on a later tick, so that listeners added right after run() see every event.
    this.#result = Promise.resolve().then(() => run(this));
    this.#result.catch(() => {}); // reported through result(); never an unhandled rejection
  }

  /**
   * Resolves when the run succeeds; rejects with a RunError (RUN_FAILED / RUN_CANCELLED) otherwise, or
   * with TIMEOUT when `timeoutMs` passes first (the run goes on).
   */
  async result({ timeoutMs }: { timeoutMs?: number } = {}): Promise<RunResult<T>> {
    const result = timeoutMs === undefined ? await this.#result : await this.#within(timeoutMs);
    if (result.status === "success") return result;
    throw runError(result);
  }

  #within(timeoutMs: number): Promise<RunResult<T>> {
    if (typeof timeoutMs !== "number" || !(timeoutMs >= 0))
      throw new AvaError("INVALID_ARGUMENT", `result({ timeoutMs }): ${timeoutMs} is not a number of ms ≥ 0`);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new AvaError("TIMEOUT", `run ${this.runId} did not finish within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    return Promise.race([this.#result, timeout]).finally(() => clearTimeout(timer));
  }

  /** The error the run ended with (RUN_FAILED / RUN_CANCELLED), or undefined when it succeeded; waits for the end. */
  async error(): Promise<RunError<T> | undefined> {
    const result = await this.#result;
    return result.status === "success" ? undefined : runError(result);
  }

  /** True once the run has ended, however it ended. */
  done(): boolean {
    return this.#finished;
  }

  /** True while the run has not ended. */
  running(): boolean {
    return !this.#finished;
  }

  /** True once cancel() was called before the run ended (it then ends "cancelled" unless a node failed). */
  cancelled(): boolean {
    return this.#cancelled;
  }

  /** Starts no new node; running nodes see their RunContext's signal aborted. */
  cancel(): void {
    if (this.#finished) return;
    this.#cancelled = true;
    this.#abort.abort(new AvaError("RUN_CANCELLED", `run ${this.runId} was cancelled`));
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  get progress(): { done: number; total: number } {
    return { done: this.#done, total: this.total };
  }

  get finished(): boolean {
    return this.#finished;
  }

  /** Follows the run's events; returns a function that stops following. */
  on(listener: (e: RunEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** @internal */
  emit(event: RunEvent): void {
    if (event.type === "node-finished") this.#done = event.done;
    if (event.type === "run-finished") this.#finished = true;
    for (const l of this.#listeners) {
      try {
        l(event);
      } catch {
        // a listener's failure is not the run's
      }
    }
  }
}

function runError<T>(result: RunResult<T>): RunError<T> {
  const failed = Object.values(result.nodes).filter((n) => n.status === "failed");
  const first = failed[0];
  const err =
    result.status === "cancelled"
      ? new AvaError("RUN_CANCELLED", `run ${result.runId} of workflow ${result.workflowName} was cancelled`)
      : new AvaError(
          "RUN_FAILED",
          `run ${result.runId} of workflow ${result.workflowName} failed: ${failed.map((n) => n.slug).join(", ")}` +
            (first?.error ? ` (${first.slug}: ${first.error.name}: ${first.error.message})` : ""),
          first?.error ? { cause: fromErrorInfo(first.error) } : undefined,
        );
  return Object.assign(err, { result });
}

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
  const kind = options.executor?.kind ?? (options.executor ? "custom" : "inline");
  const executor = options.executor ?? inlineExecutor();
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
      if (plan) run.rerunOf = plan.rerunOf;
      return run;
    };
    if (storage) await storage.catalog.commit([{ op: "recordRun", run: record("running"), create: true }]);

    const values = new Map<Invocation, unknown>();
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
        while (!signal.aborted && running < executor.concurrency && ready.length > 0) launch(ready.shift()!);
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
        let run: Promise<unknown>;
        try {
          run = executor.runNode({ workflow, storage }, task, signal, movable);
        } catch (err) {
          run = Promise.reject(err);
        }
        run
          .then(
            (value) => {
              values.set(node, value);
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
