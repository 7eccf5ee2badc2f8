// `avalanche-web runs | run | rerun`: the runs a storage recorded (each node's status, duration, error,
// logs, and the snapshots it committed), and running or rerunning a workflow from a module.
import { AvaError, isAvaError } from "../errors.js";
import type { RunRecord } from "../storage/catalog/model.js";
import { nodeStorage } from "../storage/node/node-storage.js";
import type { Storage } from "../storage/types.js";
import { rerun as rerunSpec } from "../workflow/rerun.js";
import type { RunHandle, RunResult } from "../workflow/run-handle.js";
import { getRun, listRuns } from "../workflow/runs.js";
import { parseArgs } from "./args.js";
import { FORMAT_OPTIONS, formatOf, msText, openRoot, timeText } from "./common.js";
import { cell, jsonSafe, type Out, printRecords, printTable } from "./output.js";
import { progressPrinter } from "./progress.js";
import { RUNS_HELP, UsageError, wantsHelp } from "./usage.js";
import { findWorkflow, loadWorkflow } from "./workflow-module.js";

const duration = (r: { startedMs?: number; finishedMs?: number }) =>
  r.startedMs !== undefined && r.finishedMs !== undefined ? r.finishedMs - r.startedMs : undefined;

async function list(root: string, args: string[], out: Out): Promise<void> {
  const parsed = parseArgs(args, { ...FORMAT_OPTIONS, workflow: { value: true } }, "runs ls", RUNS_HELP);
  if (parsed.operands.length > 0) throw new UsageError("runs ls: takes no arguments", RUNS_HELP);
  const workflowName = parsed.options.get("workflow");
  const runs = await listRuns(await openRoot(root), workflowName === undefined ? {} : { workflowName });
  const records = runs.map((r) => {
    const nodes = Object.values(r.nodes);
    return {
      run: r.runId,
      workflow: r.workflowName,
      status: r.status,
      started: timeText(r.startedMs),
      durationMs: duration(r) ?? null,
      nodes: `${nodes.filter((n) => n.status === "success" || n.status === "skipped").length}/${nodes.length}`,
      rerunOf: r.rerunOf ?? "",
    };
  });
  printRecords(
    out,
    ["run", "workflow", "status", "started", "durationMs", "nodes", "rerunOf"],
    records,
    formatOf(parsed, "runs ls", RUNS_HELP),
  );
}

/** The snapshots a run committed, by node slug: which tables each node wrote (the run's lineage). */
async function lineageOf(storage: Storage, runId: string) {
  const state = await storage.catalog.current();
  const byNode: Record<string, { table: string; snapshot: string; rows: number }[]> = {};
  for (const t of Object.values(state.tables))
    for (const s of t.history.snapshots)
      if (s.runId === runId) {
        const slug = s.nodeSlug ?? "";
        byNode[slug] ??= [];
        byNode[slug].push({
          table: `${t.namespace}.${t.name}`,
          snapshot: s.id,
          rows: s.addedRows,
        });
      }
  return byNode;
}

async function show(root: string, args: string[], out: Out): Promise<void> {
  const parsed = parseArgs(args, { json: {} }, "runs show", RUNS_HELP);
  if (parsed.operands.length !== 1) throw new UsageError("runs show: expects RUN_ID", RUNS_HELP);
  const storage = await openRoot(root);
  const run = await getRun(storage, parsed.operands[0]!);
  const lineage = await lineageOf(storage, run.runId);
  if (parsed.options.has("json")) return out(JSON.stringify(jsonSafe({ ...run, writes: lineage })));
  printRun(out, run, lineage);
}

function printRun(
  out: Out,
  run: RunRecord,
  lineage: Record<string, { table: string; snapshot: string; rows: number }[]>,
) {
  out(`run:       ${run.runId}`);
  out(`workflow:  ${run.workflowName}`);
  out(`status:    ${run.status}`);
  out(`started:   ${timeText(run.startedMs)}`);
  if (run.finishedMs !== undefined) out(`finished:  ${timeText(run.finishedMs)} (${msText(duration(run))})`);
  if (run.rerunOf) out(`rerun of:  ${run.rerunOf}`);
  if (Object.keys(run.metadata).length > 0) out(`metadata:  ${cell(run.metadata)}`);
  out("");
  const slugs = Object.keys(run.nodes);
  printTable(
    out,
    ["node", "role", "status", "duration", "error"],
    slugs.map((slug) => {
      const n = run.nodes[slug]!;
      const error = n.error ? `${n.error.code ?? n.error.name}: ${n.error.message}` : "";
      return [slug, n.role, n.status, msText(duration(n)), error];
    }),
  );
  for (const slug of slugs) {
    const n = run.nodes[slug]!;
    const writes = lineage[slug] ?? [];
    if (!n.logs?.length && writes.length === 0) continue;
    out("");
    out(`${slug}:`);
    for (const w of writes) out(`  wrote ${w.rows} rows to ${w.table} (snapshot ${w.snapshot})`);
    for (const l of n.logs ?? []) out(`  ${timeText(l.timestampMs)} [${l.level}] ${l.message}`);
    if (n.droppedLogs) out(`  (${n.droppedLogs} more log lines were not kept)`);
  }
}

/** Follows a started run to its end; false when it did not succeed. */
async function follow(handle: RunHandle, out: Out, json: boolean): Promise<boolean> {
  const tty = process.stderr.isTTY === true && !json;
  // Progress goes to stderr on a terminal, so that stdout keeps only the outcome.
  const stop = json ? () => {} : handle.on(progressPrinter(out, tty, (t) => process.stderr.write(t)));
  let result: RunResult;
  try {
    result = await handle.result();
  } catch (err) {
    if (!isAvaError(err) || !("result" in err)) throw err;
    result = (err as unknown as { result: RunResult }).result;
  } finally {
    stop();
  }
  if (json) {
    out(JSON.stringify(jsonSafe({ ...result })));
  } else {
    out(`run ${result.runId} ${result.status} in ${msText(result.finishedMs - result.startedMs)}`);
    for (const n of Object.values(result.nodes))
      if (n.status === "failed" && n.error)
        out(`  ${n.slug} failed: ${n.error.code ?? n.error.name}: ${n.error.message.split("\n")[0]}`);
  }
  return result.status === "success";
}

function parseInput(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new AvaError("INVALID_ARGUMENT", `--input is not JSON: ${(err as Error).message}`);
  }
}

async function run(root: string, args: string[], out: Out): Promise<boolean> {
  const parsed = parseArgs(
    args,
    { json: {}, input: { value: true }, "run-id": { value: true } },
    "run",
    RUNS_HELP,
  );
  if (parsed.operands.length !== 1) throw new UsageError("run: expects MODULE#WORKFLOW", RUNS_HELP);
  const input = parseInput(parsed.options.get("input"));
  const workflow = await loadWorkflow(parsed.operands[0]!);
  const runId = parsed.options.get("run-id");
  const handle = workflow.run({
    storage: nodeStorage({ root }),
    input,
    ...(runId !== undefined ? { runId } : {}),
  });
  return follow(handle, out, parsed.options.has("json"));
}

async function rerunCommand(root: string, args: string[], out: Out): Promise<boolean> {
  const parsed = parseArgs(
    args,
    { json: {}, module: { value: true }, start: { value: true, repeat: true }, lazy: {} },
    "rerun",
    RUNS_HELP,
  );
  if (parsed.operands.length !== 1) throw new UsageError("rerun: expects RUN_ID", RUNS_HELP);
  const start = parsed.all.get("start") ?? [];
  if (start.length === 0) throw new UsageError("rerun: give the nodes to rerun with --start SLUG", RUNS_HELP);
  const module = parsed.options.get("module");
  if (module === undefined)
    throw new UsageError("rerun: give the workflow's module with --module FILE", RUNS_HELP);
  const storage = await openRoot(root);
  const source = await getRun(storage, parsed.operands[0]!);
  const workflow = await findWorkflow(module, source.workflowName);
  const spec = rerunSpec({
    runId: source.runId,
    start,
    mode: parsed.options.has("lazy") ? "lazy" : "autorun",
  });
  return follow(workflow.run({ storage, rerun: spec }), out, parsed.options.has("json"));
}

export async function runsCommand(root: string, args: string[], out: Out): Promise<void> {
  if (wantsHelp(args)) return out(RUNS_HELP);
  const [sub, ...rest] = args;
  switch (sub) {
    case undefined:
    case "ls":
      return list(root, rest, out);
    case "show":
      return show(root, rest, out);
    default:
      if (sub.startsWith("-")) return list(root, args, out);
      throw new UsageError(`runs: unknown command ${sub}`, RUNS_HELP);
  }
}

/** `run` and `rerun`; false when the run failed or was cancelled. */
export function runCommand(
  root: string,
  command: "run" | "rerun",
  args: string[],
  out: Out,
): Promise<boolean> {
  if (wantsHelp(args)) {
    out(RUNS_HELP);
    return Promise.resolve(true);
  }
  return command === "run" ? run(root, args, out) : rerunCommand(root, args, out);
}
