// `ava.rerun({ runId, start, mode })`: run again part of an earlier run. autorun = the start nodes and
// everything downstream of them; lazy = the start nodes only. Nodes not rerun do not run: a rerun node may
// read their rows through streams (from the source run), never take their values, which are gone — that is
// refused before anything runs. A rerun of a rerun reads, for each upstream node, the rows of the newest
// run in the chain that wrote some.
import { AvaError } from "../errors.js";
import type { Storage } from "../storage/types.js";
import type { Invocation } from "./build.js";
import { getRun } from "./runs.js";
import type { Workflow } from "./workflow.js";

export interface RerunSpec {
  readonly kind: "avalanche.rerun";
  readonly runId: string;
  readonly start: readonly string[];
  readonly mode: "autorun" | "lazy";
}

const RERUN_KEYS = new Set(["runId", "start", "mode"]);

export function rerun(spec: {
  runId: string;
  start: readonly string[];
  mode?: "autorun" | "lazy";
}): RerunSpec {
  if (typeof spec !== "object" || spec === null)
    throw new AvaError("INVALID_ARGUMENT", "ava.rerun takes { runId, start, mode? }");
  const unknown = Object.keys(spec).filter((k) => !RERUN_KEYS.has(k));
  if (unknown.length > 0)
    throw new AvaError(
      "INVALID_ARGUMENT",
      `ava.rerun: unknown option ${unknown.map((k) => JSON.stringify(k)).join(", ")}; it takes runId, start and mode`,
    );
  const { runId, start, mode = "autorun" } = spec;
  if (typeof runId !== "string" || runId.length === 0)
    throw new AvaError("INVALID_ARGUMENT", "ava.rerun needs the runId of the run to rerun");
  if (!Array.isArray(start) || start.length === 0 || start.some((s) => typeof s !== "string"))
    throw new AvaError("INVALID_ARGUMENT", "ava.rerun needs start: the slugs of the nodes to rerun");
  if (mode !== "autorun" && mode !== "lazy")
    throw new AvaError("INVALID_ARGUMENT", `ava.rerun mode ${JSON.stringify(mode)}: use "autorun" or "lazy"`);
  return Object.freeze({ kind: "avalanche.rerun", runId, start: [...start], mode });
}

export interface RerunPlan {
  rerunOf: string;
  /** The runs whose rows streams fall back to, newest first: the source run, then what it reran. */
  chain: string[];
  selected: ReadonlySet<Invocation>;
}

export async function planRerun(
  workflow: Workflow,
  spec: RerunSpec,
  storage: Storage | undefined,
): Promise<RerunPlan> {
  if (!storage)
    throw new AvaError(
      "INVALID_ARGUMENT",
      `a rerun of ${spec.runId} needs the storage the run was recorded in`,
    );
  const source = await getRun(storage, spec.runId);
  if (source.workflowName !== workflow.name)
    throw new AvaError(
      "INVALID_ARGUMENT",
      `run ${spec.runId} is a run of workflow ${source.workflowName}, not ${workflow.name}`,
    );
  const chain = [source.runId];
  for (let r = source; r.rerunOf; ) {
    r = await getRun(storage, r.rerunOf);
    chain.push(r.runId);
  }
  const selected = new Set(spec.start.map((slug) => workflow.node(slug)));
  if (spec.mode === "autorun") {
    const downstream = new Map<Invocation, Invocation[]>(workflow.nodes.map((n) => [n, []]));
    for (const n of workflow.nodes) for (const before of n.after) downstream.get(before)!.push(n);
    const queue = [...selected];
    while (queue.length > 0)
      for (const next of downstream.get(queue.pop()!)!)
        if (!selected.has(next)) {
          selected.add(next);
          queue.push(next);
        }
  }
  const byIndex = new Map(workflow.nodes.map((n) => [n.index, n]));
  for (const node of selected)
    for (const arg of node.args) {
      const upstream = arg.kind === "future" ? byIndex.get(arg.node)! : undefined;
      if (upstream && !selected.has(upstream))
        throw new AvaError(
          "WORKFLOW_INVALID",
          `rerun of ${spec.runId}: node ${node.slug} takes the value of ${upstream.slug}, which is not rerun; rerun ${upstream.slug} too, or read its rows through ava.stream`,
        );
    }
  return { rerunOf: source.runId, chain, selected };
}
