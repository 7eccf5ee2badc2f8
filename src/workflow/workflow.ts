// `ava.workflow({ name }, builder)`: builds the DAG once, at definition, so that cycles and duplicate slugs
// are refused where the workflow is written. The same module imported in a worker builds the same DAG,
// which is how a worker finds a node's function by its slug.
import type { z } from "zod";
import { AvaError } from "../errors.js";
import type { BoundTableDeclaration } from "../table/declare.js";
import { checkName } from "../util/names.js";
import { Build, type Invocation } from "./build.js";
import { Cron } from "./cron.js";
import { type RunInputRef, runInput } from "./context.js";
import type { ModelLookup } from "./crossing.js";
import { NodeFuture } from "./future.js";
import { type RunOptions, startRun } from "./run.js";
import type { RunHandle } from "./run-handle.js";

export interface WorkflowOptions<I = unknown> {
  name: string;
  /** A zod schema for the run's input: `run({ input })` is validated (and defaulted) by it before anything runs. */
  input?: z.ZodType<I>;
  /**
   * A five-field cron expression in UTC (`"0 * * * *"`: hourly): `avalanche-web serve` runs the workflow at each
   * tick, once per tick however many servers share the storage.
   */
  schedule?: string;
  /**
   * Ticks missed while no server ran: `"latest"` (default) runs the most recent one, `"all"` runs each
   * (at most 100, the newest), `"none"` runs none and waits for the next tick.
   */
  catchUp?: CatchUp;
}

export type CatchUp = "latest" | "all" | "none";

export interface WorkflowSchedule {
  cron: Cron;
  catchUp: CatchUp;
}

/** The value a builder's output stands for: futures replaced by their values. */
export type Resolved<T> =
  T extends NodeFuture<infer V>
    ? V
    : T extends readonly unknown[]
      ? { [K in keyof T]: Resolved<T[K]> }
      : T extends Record<string, unknown>
        ? { [K in keyof T]: Resolved<T[K]> }
        : T;

export class Workflow<T = unknown> {
  readonly kind = "avalanche.workflow";
  /** Nodes in a topological order. */
  readonly nodes: readonly Invocation[];
  readonly #bySlug: ReadonlyMap<string, Invocation>;
  readonly #output: unknown;
  readonly #problem: AvaError | undefined;
  #models: ModelLookup | undefined;

  constructor(
    readonly name: string,
    build: Build,
    output: unknown,
    readonly inputSchema?: z.ZodType,
    /** When the workflow runs by itself under `avalanche-web serve`. */
    readonly schedule?: WorkflowSchedule,
  ) {
    this.nodes = build.topologicalOrder();
    this.#bySlug = new Map(this.nodes.map((n) => [n.slug, n]));
    this.#output = output;
    this.#problem = build.problem;
  }

  /** Refuses a workflow that was defined but cannot run (a step without a name, as minifiers leave them). */
  assertRunnable(): void {
    if (this.#problem) throw new AvaError(this.#problem.code, this.#problem.message);
  }

  /** The zod models of the tables its steps inject, by identifier (for AppendResults crossing workers). */
  get tableModels(): ModelLookup {
    if (!this.#models) {
      const models = new Map<string, z.ZodObject>();
      for (const n of this.nodes)
        for (const v of Object.values(n.step.inject ?? {})) {
          const decl = v as Partial<BoundTableDeclaration>;
          if (decl?.kind === "avalanche.table" && decl.identifier && decl.schema?.zod)
            models.set(decl.identifier, decl.schema.zod);
        }
      this.#models = (identifier) => models.get(identifier);
    }
    return this.#models;
  }

  node(slug: string): Invocation {
    const node = this.#bySlug.get(slug);
    if (!node) throw new AvaError("NOT_FOUND", `workflow ${this.name} has no node ${slug}`);
    return node;
  }

  /** The builder's output with each future replaced by `valueAt(node, index)`. */
  resolveOutput(valueAt: (node: Invocation, index: number | undefined) => unknown): T {
    const fill = (x: unknown): unknown => {
      if (x instanceof NodeFuture) return valueAt(x.node, x.index);
      if (Array.isArray(x)) return x.map(fill);
      if (typeof x === "object" && x !== null && Object.getPrototypeOf(x) === Object.prototype)
        return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, fill(v)]));
      return x;
    };
    return fill(this.#output) as T;
  }

  /** The run input as the nodes get it: validated by the workflow's input schema when it has one. */
  parseInput(input: unknown): unknown {
    if (!this.inputSchema) return input;
    const parsed = this.inputSchema.safeParse(input);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0]!;
    const at = issue.path.length > 0 ? ` at "${issue.path.map(String).join(".")}"` : "";
    throw new AvaError(
      "SCHEMA_MISMATCH",
      `workflow ${this.name}: the run input is not valid${at}: ${issue.message}`,
    );
  }

  /** Starts a run and returns its handle at once. */
  run(options: RunOptions = {}): RunHandle<T> {
    this.assertRunnable();
    return startRun(this, options);
  }
}

/**
 * Builds a workflow. The builder runs once, now; it receives a reference to the run's input, which any step
 * may take as an argument (the validated input is passed when the node runs).
 */
export function workflow<T, I = unknown>(
  options: WorkflowOptions<I>,
  builder: (input: RunInputRef<I>) => T,
): Workflow<Resolved<T>> {
  checkName("workflow", options?.name);
  if (typeof builder !== "function")
    throw new AvaError("INVALID_ARGUMENT", `workflow ${options.name}: the builder is not a function`);
  const schema = options.input;
  if (schema !== undefined && typeof (schema as { safeParse?: unknown })?.safeParse !== "function")
    throw new AvaError("INVALID_ARGUMENT", `workflow ${options.name}: input must be a zod schema`);
  const schedule = scheduleOf(options);
  const { build, output } = Build.run(options.name, () => builder(runInput() as RunInputRef<I>));
  return new Workflow<Resolved<T>>(options.name, build, output, schema, schedule);
}

function scheduleOf({
  name,
  schedule,
  catchUp = "latest",
}: WorkflowOptions<unknown>): WorkflowSchedule | undefined {
  if (catchUp !== "latest" && catchUp !== "all" && catchUp !== "none")
    throw new AvaError(
      "INVALID_ARGUMENT",
      `workflow ${name}: catchUp is "latest", "all" or "none", got ${JSON.stringify(catchUp)}`,
    );
  if (schedule === undefined) return undefined;
  try {
    return { cron: Cron.parse(schedule), catchUp };
  } catch (err) {
    throw new AvaError("INVALID_ARGUMENT", `workflow ${name}: ${(err as Error).message}`, { cause: err });
  }
}

export function isWorkflow(v: unknown): v is Workflow {
  return typeof v === "object" && v !== null && (v as { kind?: unknown }).kind === "avalanche.workflow";
}
