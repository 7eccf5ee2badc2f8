// Futures: what a step call gives inside a workflow builder. Passing one to another step is a data edge;
// `a.before(b)` and `ava.parallel(a, b).before(c)` are ordering edges. (The method is not `then`: an
// object with `then` is a thenable, and awaiting it would call it.)
import { AvaError } from "../errors.js";
import type { Invocation } from "./build.js";

export class NodeFuture<T = unknown> {
  /** Type-only: the value this future stands for. */
  declare readonly __value?: T;

  constructor(
    readonly node: Invocation,
    /** For a step with numReturns: which of its values. */
    readonly index?: number,
  ) {}

  get slug(): string {
    return this.node.slug;
  }

  /** Makes `next` (a future or a parallel group) wait for this node; returns `next`, for chains. */
  before<N extends NodeFuture | ParallelGroup>(next: N): N {
    for (const node of nodesOf(next)) this.node.build.order(this.node, node);
    return next;
  }
}

/** Futures that run side by side; `.before(x)` makes x wait for all of them. */
export class ParallelGroup {
  constructor(readonly futures: readonly NodeFuture[]) {}

  before<N extends NodeFuture | ParallelGroup>(next: N): N {
    for (const f of this.futures) f.before(next);
    return next;
  }
}

export function parallel(...items: (NodeFuture | ParallelGroup)[]): ParallelGroup {
  const futures = items.flatMap((i) => (i instanceof ParallelGroup ? i.futures : [i]));
  for (const f of futures)
    if (!(f instanceof NodeFuture))
      throw new AvaError("WORKFLOW_INVALID", "ava.parallel(...) takes futures of step calls");
  return new ParallelGroup(futures);
}

function nodesOf(x: NodeFuture | ParallelGroup): Invocation[] {
  if (x instanceof NodeFuture) return [x.node];
  if (x instanceof ParallelGroup) return x.futures.map((f) => f.node);
  throw new AvaError("WORKFLOW_INVALID", "before(...) takes a future or an ava.parallel(...) group");
}
