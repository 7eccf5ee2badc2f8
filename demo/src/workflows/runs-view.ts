// The "Workflows" tab: run the rollup in Web Workers, watch its DAG fill in, list past runs, open one, and
// see its rows' lineage — which run and node wrote each rollup row.
import * as ava from "avalanche-web";
import type { TelemetryNamespace } from "../namespace.js";
import { dagOf, renderDag } from "./dag.js";
import { GROUPS, rollupFlow } from "./rollup.js";

export class RunsView {
  readonly #root: HTMLElement;
  readonly #dag = dagOf(rollupFlow);
  #executor: ava.Executor | undefined;
  /** The last run's result (tests read it). */
  lastRun: { runId: string; status: string; value?: unknown } | undefined;

  constructor(
    root: HTMLElement,
    readonly ns: TelemetryNamespace,
  ) {
    this.#root = root;
    root.innerHTML = `<p><button type="button" id="run-rollup">Run rollup</button> <span id="run-status"></span></p>
      <p id="backlog"></p>
      <div id="run-dag"></div>
      <h3>Runs</h3><table class="result" id="run-list"></table>
      <h3>Row lineage <small id="lineage-of"></small></h3><div id="lineage"></div>`;
    root.querySelector("#run-rollup")!.addEventListener("click", () => void this.run());
    renderDag(root.querySelector("#run-dag")!, this.#dag, undefined);
  }

  /** The pool of Workers on the app's own entry, started on first use and kept. */
  #pool(): ava.Executor {
    this.#executor ??= ava.workerExecutor({
      worker: () => new Worker(new URL("./rollup.worker.ts", import.meta.url), { type: "module" }),
      size: 2,
    });
    return this.#executor;
  }

  async refresh(): Promise<void> {
    const pending = await Promise.all(
      Object.keys(GROUPS).map(async (g) => {
        const list = await ava.pendingSnapshots(this.ns.storage, this.ns.points.declaration, `rollup_${g}`);
        return `rollup_${g}: ${list.length} raw snapshots pending`;
      }),
    );
    this.#root.querySelector("#backlog")!.textContent = pending.join(" · ");
    const runs = (await ava.listRuns(this.ns.storage, { workflowName: "rollup" })).sort(
      (a, b) => b.startedMs - a.startedMs,
    );
    const list = this.#root.querySelector<HTMLTableElement>("#run-list")!;
    list.innerHTML = "<tr><th>run</th><th>status</th><th>started</th><th>duration</th><th>nodes</th></tr>";
    for (const r of runs.slice(0, 20)) {
      const row = list.insertRow();
      row.dataset.runId = r.runId;
      row.style.cursor = "pointer";
      const nodes = Object.entries(r.nodes).map(([slug, n]) => `${slug}: ${n.status}`);
      for (const text of [
        r.runId,
        r.status,
        new Date(r.startedMs).toLocaleTimeString(),
        r.finishedMs ? `${r.finishedMs - r.startedMs} ms` : "…",
        nodes.join(", "),
      ])
        row.insertCell().textContent = text;
      row.addEventListener("click", () => void this.open(r.runId));
    }
  }

  /** Runs the rollup once (each consumer takes up to MAX_SNAPSHOTS pending raw snapshots). */
  async run(): Promise<void> {
    const status = this.#root.querySelector<HTMLElement>("#run-status")!;
    const dag = this.#root.querySelector<HTMLElement>("#run-dag")!;
    const live = new Map<string, string>();
    const handle = rollupFlow.run({ storage: this.ns.storage, executor: this.#pool() });
    status.textContent = `run ${handle.runId} started`;
    handle.on((e) => {
      if (e.type === "node-started") live.set(e.slug, "running");
      if (e.type === "node-finished") live.set(e.slug, e.status);
      if (e.type === "log") live.set(e.slug, `running: ${e.line.message}`);
      if (e.type !== "log") status.textContent = `run ${handle.runId}: ${e.done}/${e.total} nodes done`;
      renderDag(dag, this.#dag, undefined, live);
    });
    try {
      const result = await handle.result();
      this.lastRun = { runId: handle.runId, status: "success", value: result.value };
      status.textContent = `run ${handle.runId}: success · ${JSON.stringify(result.value)}`;
    } catch (err) {
      const e = err as ava.AvaError;
      this.lastRun = { runId: handle.runId, status: e.code };
      status.textContent = `run ${handle.runId}: ${e.code}: ${e.message}`;
    }
    await this.open(handle.runId);
    await this.refresh();
  }

  /** Shows a recorded run's DAG and the rollup rows it wrote, with their provenance. */
  async open(runId: string): Promise<void> {
    const run = await ava.getRun(this.ns.storage, runId);
    renderDag(this.#root.querySelector("#run-dag")!, this.#dag, run);
    this.#root.querySelector("#lineage-of")!.textContent = `rows written by run ${runId}`;
    const rows = await this.ns.rollups
      .scan({
        columns: [
          "channel",
          "minute",
          "min",
          "mean",
          "max",
          "count",
          "_ava_run_id",
          "_ava_node_slug",
          "_ava_lineage_vector",
        ],
        filter: (w) => w.eq("_ava_run_id", runId),
        limit: 50,
      })
      .toObjects();
    const out = this.#root.querySelector<HTMLElement>("#lineage")!;
    if (rows.length === 0) {
      out.textContent = "this run wrote no rows (nothing was pending)";
      return;
    }
    const names = Object.keys(rows[0]!);
    out.innerHTML = `<table class="result"><tr>${names.map((n) => `<th>${n}</th>`).join("")}</tr>${rows
      .map(
        (r) =>
          `<tr>${names.map((n) => `<td>${format((r as Record<string, unknown>)[n])}</td>`).join("")}</tr>`,
      )
      .join("")}</table>`;
  }
}

function format(v: unknown): string {
  if (v instanceof Date) return v.toISOString().slice(11, 16);
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toFixed(3);
  if (typeof v === "object" && v !== null) return JSON.stringify(v); // the lineage vector: node slug -> run id
  return String(v);
}
