// A run drawn as its DAG: nodes in columns by depth (a node sits right of everything it waits for), each
// with its status, duration, error and last log line.
import type * as ava from "avalanche-web";

export interface DagNode {
  slug: string;
  after: string[];
}

/** The workflow's nodes and their upstream slugs, from the built workflow. */
export function dagOf(flow: ava.Workflow<unknown>): DagNode[] {
  return flow.nodes.map((n) => ({ slug: n.slug, after: [...n.after].map((u) => u.slug) }));
}

function depths(nodes: DagNode[]): Map<string, number> {
  const depth = new Map<string, number>();
  const of = (slug: string): number => {
    const known = depth.get(slug);
    if (known !== undefined) return known;
    const node = nodes.find((n) => n.slug === slug)!;
    const d = node.after.length === 0 ? 0 : 1 + Math.max(...node.after.map(of));
    depth.set(slug, d);
    return d;
  };
  for (const n of nodes) of(n.slug);
  return depth;
}

function describe(record: ava.NodeRecord | undefined, live: string | undefined): string {
  if (!record) return live ?? "waiting";
  const ms = record.startedMs && record.finishedMs ? `${record.finishedMs - record.startedMs} ms` : "";
  const log = record.logs?.at(-1)?.message ?? "";
  const error = record.error
    ? `<div class="error">${record.error.code ?? ""} ${record.error.message}</div>`
    : "";
  return `${record.status} ${ms}<br><small>${log}</small>${error}`;
}

/** Renders the DAG with the run's node records (and live states of nodes still running). */
export function renderDag(
  root: HTMLElement,
  nodes: DagNode[],
  run: ava.RunRecord | undefined,
  live: Map<string, string> = new Map(),
): void {
  const depth = depths(nodes);
  const columns: DagNode[][] = [];
  for (const n of nodes) {
    const d = depth.get(n.slug)!;
    columns[d] = [...(columns[d] ?? []), n];
  }
  root.innerHTML = "";
  root.className = "dag";
  columns.forEach((column, i) => {
    if (i > 0)
      root.append(Object.assign(document.createElement("span"), { className: "arrow", textContent: "→" }));
    const col = document.createElement("div");
    for (const n of column) {
      const record = run?.nodes[n.slug];
      const box = document.createElement("div");
      box.className = `node ${record?.status === "success" ? "succeeded" : (record?.status ?? (live.has(n.slug) ? "running" : ""))}`;
      box.dataset.slug = n.slug;
      box.innerHTML = `<b>${n.slug}</b><br>${describe(record, live.get(n.slug))}`;
      col.append(box);
    }
    root.append(col);
  });
}
