// Building a workflow: the builder function runs once, with this module's "current build" set, and each
// step call inside it records an Invocation. Futures among a call's arguments become data edges. When the
// builder returns, slugs are checked and the graph is ordered (Kahn); a cycle is refused naming its slugs.
import { AvaError } from "../errors.js";
import { NodeFuture } from "./future.js";
import type { StepDefinition } from "./step.js";

/** One argument of an invocation: a constant, or the value (or one of the values) of an upstream node. */
export type ArgSpec = { kind: "const"; value: unknown } | { kind: "future"; node: number; index?: number };

export class Invocation {
  /** Nodes that must finish first: data edges and ordering edges. */
  readonly after = new Set<Invocation>();

  constructor(
    readonly build: Build,
    readonly index: number,
    readonly step: StepDefinition,
    readonly slug: string,
    readonly nodeId: string,
    readonly args: readonly ArgSpec[],
  ) {}
}

let current: Build | undefined;

export function currentBuild(): Build | undefined {
  return current;
}

export class Build {
  readonly nodes: Invocation[] = [];
  readonly #bySlug = new Map<string, Invocation>();
  readonly #stepOfSlug = new Map<string, StepDefinition>();
  readonly #calls = new Map<StepDefinition, number>();

  constructor(readonly workflowName: string) {}

  /** Runs `builder` with this build current; its return value is the workflow's output. */
  static run(workflowName: string, builder: () => unknown): { build: Build; output: unknown } {
    if (current)
      throw new AvaError("WORKFLOW_INVALID", "ava.workflow(...) cannot be called inside a builder");
    const build = new Build(workflowName);
    current = build;
    try {
      const output = builder();
      if (output instanceof Promise)
        throw new AvaError("WORKFLOW_INVALID", `the builder of workflow ${workflowName} must not be async`);
      return { build, output };
    } finally {
      current = undefined;
    }
  }

  /** Why the workflow cannot run (a step without a name), kept for run time: never thrown at import. */
  problem: AvaError | undefined;

  invoke(step: StepDefinition, args: unknown[], indexed: boolean): NodeFuture | NodeFuture[] {
    if (step.slug === "") return this.#invokeUnnamed(step, args, indexed);
    const owner = this.#stepOfSlug.get(step.slug);
    if (owner && owner !== step)
      throw new AvaError(
        "WORKFLOW_INVALID",
        `workflow ${this.workflowName}: two different steps share the slug "${step.slug}"`,
      );
    this.#stepOfSlug.set(step.slug, step);
    const n = (this.#calls.get(step) ?? 0) + 1;
    this.#calls.set(step, n);
    const slug = n === 1 ? step.slug : `${step.slug}_${n}`;
    if (this.#bySlug.has(slug))
      throw new AvaError(
        "WORKFLOW_INVALID",
        `workflow ${this.workflowName}: the slug "${slug}" is used twice`,
      );
    return this.#add(step, slug, n, args, indexed);
  }

  /** A step whose function lost its name (minified): a placeholder node, and the reason the run is refused. */
  #invokeUnnamed(step: StepDefinition, args: unknown[], indexed: boolean): NodeFuture | NodeFuture[] {
    const position = this.nodes.length + 1;
    this.problem ??= new AvaError(
      "WORKFLOW_INVALID",
      `workflow ${this.workflowName}: step call ${position} has no name (its function is anonymous, or a ` +
        `minifier stripped its name); name it: ava.step("generate", async (…) => …), or pass { slug }`,
    );
    const n = (this.#calls.get(step) ?? 0) + 1;
    this.#calls.set(step, n);
    return this.#add(step, `unnamed_${position}`, n, args, indexed);
  }

  /** `call`: which call of `step` this is in the builder, from 1. */
  #add(
    step: StepDefinition,
    slug: string,
    call: number,
    args: unknown[],
    indexed: boolean,
  ): NodeFuture | NodeFuture[] {
    const specs = args.map((a, i) => argSpec(a, i, slug, this));
    const node = new Invocation(
      this,
      this.nodes.length,
      step,
      slug,
      // The original's node ids: the function's name (the step's slug when minified away) and its call count.
      `${step.name || step.slug || "unnamed"}_${call}`,
      specs,
    );
    for (const spec of specs) if (spec.kind === "future") node.after.add(this.nodes[spec.node]!);
    this.nodes.push(node);
    this.#bySlug.set(slug, node);
    if (!indexed) return new NodeFuture(node);
    return Array.from({ length: step.numReturns }, (_, i) => new NodeFuture(node, i));
  }

  /** An ordering edge: `second` waits for `first`. */
  order(first: Invocation, second: Invocation): void {
    if (first.build !== this || second.build !== this)
      throw new AvaError("WORKFLOW_INVALID", "before(...) links futures of one workflow only");
    if (first === second)
      throw new AvaError("WORKFLOW_INVALID", `node ${first.slug} cannot run before itself`);
    second.after.add(first);
  }

  /** The nodes in an order where each comes after everything it waits for; a cycle is refused. */
  topologicalOrder(): Invocation[] {
    const waiting = new Map(this.nodes.map((n) => [n, n.after.size]));
    const next = new Map<Invocation, Invocation[]>(this.nodes.map((n) => [n, []]));
    for (const n of this.nodes) for (const before of n.after) next.get(before)!.push(n);
    const ready = this.nodes.filter((n) => n.after.size === 0);
    const out: Invocation[] = [];
    while (ready.length > 0) {
      const n = ready.shift()!;
      out.push(n);
      for (const m of next.get(n)!) {
        const left = waiting.get(m)! - 1;
        waiting.set(m, left);
        if (left === 0) ready.push(m);
      }
    }
    if (out.length < this.nodes.length) {
      const stuck = this.nodes.filter((n) => waiting.get(n)! > 0).map((n) => n.slug);
      throw new AvaError(
        "WORKFLOW_INVALID",
        `workflow ${this.workflowName} has a cycle through ${stuck.join(", ")}`,
      );
    }
    return out;
  }
}

function argSpec(value: unknown, position: number, slug: string, build: Build): ArgSpec {
  if (value instanceof NodeFuture) {
    if (value.node.build !== build)
      throw new AvaError(
        "WORKFLOW_INVALID",
        `step ${slug}: argument ${position} is a future of another workflow`,
      );
    if (value.node.step.numReturns > 1 && value.index === undefined)
      throw new AvaError(
        "WORKFLOW_INVALID",
        `step ${slug}: argument ${position} is the whole of ${value.slug}, which has numReturns; pass one of its futures`,
      );
    return value.index === undefined
      ? { kind: "future", node: value.node.index }
      : { kind: "future", node: value.node.index, index: value.index };
  }
  if (containsFuture(value, 0))
    throw new AvaError(
      "WORKFLOW_INVALID",
      `step ${slug}: argument ${position} holds a future inside an array or object; pass futures as arguments themselves`,
    );
  return { kind: "const", value };
}

function containsFuture(value: unknown, depth: number): boolean {
  if (value instanceof NodeFuture) return true;
  if (depth > 4 || typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) return value.some((v) => containsFuture(v, depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.values(value).some((v) => containsFuture(v, depth + 1));
}
