// Runs: the recorded ones (`GET /runs`, `GET /runs/:id`, which can wait for the end with `?wait=MS` and
// gives the value of runs this server started), and webhooks that start one (`POST /hooks/:workflow`).
import { AvaError } from "../errors.js";
import { jsonSafe } from "../util/json-safe.js";
import type { RunRecord } from "../storage/catalog/model.js";
import { getRun, listRuns } from "../workflow/runs.js";
import { checkName } from "../util/names.js";
import { readJson, sendJson } from "./http-util.js";
import type { Route, RouteContext } from "./routes.js";

function waitOf(ctx: RouteContext): number {
  const text = ctx.query.get("wait");
  if (text === null) return 0;
  const ms = Number(text);
  if (!(Number.isFinite(ms) && ms >= 0))
    throw new AvaError(
      "INVALID_ARGUMENT",
      `wait is a number of milliseconds ≥ 0, got ${JSON.stringify(text)}`,
    );
  return Math.min(ms, ctx.state.limits.maxWaitMs);
}

async function runView(ctx: RouteContext, runId: string): Promise<unknown> {
  const { state } = ctx;
  const handle = state.active.get(runId);
  const wait = waitOf(ctx);
  if (handle && wait > 0) await handle.result({ timeoutMs: wait }).catch(() => {});
  let record: RunRecord | undefined;
  try {
    record = await getRun(state.storage, runId);
  } catch (err) {
    // A run this server just started may not have committed its first record yet.
    const live = state.active.get(runId);
    if (!live) throw err;
    return { runId, workflowName: "", status: "running", progress: live.progress, nodes: {} };
  }
  const live = state.active.get(runId);
  const result = state.results.get(runId);
  return jsonSafe({
    ...record,
    ...(live && !live.finished ? { progress: live.progress } : {}),
    ...(result ? { status: result.status, value: result.value } : {}),
  });
}

export const runRoutes: Route[] = [
  {
    method: "GET",
    path: "/runs",
    mutating: false,
    summary: "recorded runs, oldest first (workflow=NAME filters)",
    async handler(ctx) {
      const workflowName = ctx.query.get("workflow");
      const runs = await listRuns(ctx.state.storage, workflowName === null ? {} : { workflowName });
      sendJson(ctx.res, 200, { runs: runs.map((r) => jsonSafe(r)) });
    },
  },
  {
    method: "GET",
    path: "/runs/:id",
    mutating: false,
    summary: "one run: its status and nodes; wait=MS waits for its end; value for runs this server started",
    async handler(ctx) {
      sendJson(ctx.res, 200, await runView(ctx, ctx.params.id!));
    },
  },
  {
    method: "GET",
    path: "/workflows",
    mutating: false,
    summary: "the workflows this server can start, with their schedules",
    async handler({ state, res }) {
      const workflows = [...state.workflows.values()].map((w) => ({
        name: w.name,
        nodes: w.nodes.map((n) => n.slug),
        schedule: w.schedule?.cron.expression ?? null,
        catchUp: w.schedule?.catchUp ?? null,
      }));
      sendJson(res, 200, { workflows });
    },
  },
  {
    method: "POST",
    path: "/hooks/:workflow",
    mutating: true,
    summary: "starts a run of a workflow with the JSON body as its input; answers its run id (202)",
    async handler({ req, res, params, state }) {
      const name = checkName("workflow", params.workflow);
      const workflow = state.workflows.get(name);
      if (!workflow)
        throw new AvaError(
          "NOT_FOUND",
          `no workflow ${name} on this server (its workflows: ${[...state.workflows.keys()].join(", ") || "none; start it with --module FILE"})`,
        );
      const input = await readJson(req, state.limits.maxBodyBytes);
      const handle = state.startRun(workflow, { input, metadata: { trigger: "webhook" } });
      sendJson(res, 202, {
        runId: handle.runId,
        workflow: name,
        status: "running",
        url: `/runs/${handle.runId}`,
      });
    },
  },
];
