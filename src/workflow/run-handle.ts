// A run's handle: what the caller of `run()` holds — its result, its events, cancel(), and the questions
// the original's RunHandle answers (done, running, cancelled, error). The scheduler (run.ts) drives it.
import { AvaError } from "../errors.js";
import type { NodeRecord, NodeStatus, RunStatus } from "../storage/catalog/model.js";
import { fromErrorInfo } from "./errors.js";
import type { LogLine } from "./logger.js";

export interface NodeResult extends NodeRecord {
  slug: string;
  durationMs?: number;
}

export interface RunResult<T = unknown> {
  runId: string;
  workflowName: string;
  status: Exclude<RunStatus, "running" | "abandoned">;
  /** The builder's output with every future replaced by its value (undefined unless the run succeeded). */
  value: T | undefined;
  nodes: Record<string, NodeResult>;
  startedMs: number;
  finishedMs: number;
}

export type RunEvent =
  | { type: "node-started"; slug: string; done: number; total: number }
  | { type: "node-finished"; slug: string; status: NodeStatus; done: number; total: number }
  | {
      type: "run-finished";
      status: Exclude<RunStatus, "running" | "abandoned">;
      done: number;
      total: number;
    }
  | { type: "log"; slug: string; line: LogLine };

/** The AvaError a failed or cancelled run's result() rejects with. */
export interface RunError<T = unknown> extends AvaError {
  result: RunResult<T>;
}

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
