// What a node can ask to be injected besides tables: its RunContext and the run's input; and the one
// outcome a node can return instead of a value, `ava.skip(reason)`.

/** What a node knows about the run it is part of. */
export interface RunContext {
  runId: string;
  workflowName: string;
  nodeId: string;
  nodeName: string;
  nodeSlug: string;
  metadata: Record<string, unknown>;
  /** What runs the nodes: the executor's kind ("inline", "web-worker", "worker-thread", …). */
  executor: string;
  /** Set in a rerun: the run rerun, the slugs it started from and its mode. */
  rerun?: { runId: string; start: readonly string[]; mode: "autorun" | "lazy" };
  /** Aborted when the run is cancelled. */
  signal: AbortSignal;
}

const RUN_CONTEXT = Symbol.for("avalanche.runContext");
const RUN_INPUT = Symbol.for("avalanche.runInput");

export interface InjectMarker {
  readonly marker: typeof RUN_CONTEXT | typeof RUN_INPUT;
}

/** In `inject`: the node's RunContext. */
export function runContext(): InjectMarker {
  return { marker: RUN_CONTEXT };
}

/** The run's input in a builder: pass it to a step as an argument and the node receives the input. */
export interface RunInputRef<I> extends InjectMarker {
  readonly __input?: I;
}

/** In `inject`: the `input` given to `flow.run(...)`. */
export function runInput(): InjectMarker {
  return { marker: RUN_INPUT };
}

export function isRunContextMarker(v: unknown): boolean {
  return (v as InjectMarker | null)?.marker === RUN_CONTEXT;
}

export function isRunInputMarker(v: unknown): boolean {
  return (v as InjectMarker | null)?.marker === RUN_INPUT;
}

/** A successful, empty outcome: the node's status is "skipped" and downstream nodes receive this value. */
export class Skip {
  readonly skipped = true as const;
  constructor(readonly reason: string) {}
}

export function skip(reason = ""): Skip {
  return new Skip(reason);
}

export function isSkip(v: unknown): v is Skip {
  return (
    v instanceof Skip ||
    (typeof v === "object" && v !== null && (v as Skip).skipped === true && "reason" in v)
  );
}
