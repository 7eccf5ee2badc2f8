// The SQL console: DuckDB (duckdb-wasm, in its own Worker) over the namespace through avalanche-web/sql.
// Every table is a view by its name; at a pinned snapshot the raw table is read as it was then.
// duckdb-wasm has no ICU offline: time functions on TIMESTAMPTZ ask for it, so the examples cast the (UTC)
// timestamps to TIMESTAMP first.
import type * as ava from "avalanche-web";
import { open, type SqlDatabase } from "avalanche-web/sql";
import type * as A from "apache-arrow";
import type { TelemetryNamespace } from "../namespace.js";
import { renderChart, renderTable } from "./result-view.js";

export const EXAMPLES: Record<string, string> = {
  "Points per channel":
    "SELECT channel, count(*) AS points, min(double) AS min, max(double) AS max\nFROM points GROUP BY channel ORDER BY channel",
  "RPM, 1 s buckets":
    "SELECT time_bucket(INTERVAL 1 second, timestamp::TIMESTAMP) AS t, avg(double) AS rpm_mean, max(double) AS rpm_max\nFROM points WHERE channel = 'engine.rpm'\nGROUP BY t ORDER BY t",
  "State changes":
    "SELECT string AS state, min(timestamp) AS first_seen, count(*) AS samples\nFROM points WHERE channel = 'state' GROUP BY string ORDER BY first_seen",
  "Rollups (workflow output)":
    "SELECT minute, channel, min, mean, max, count, _ava_run_id, _ava_node_slug\nFROM rollups ORDER BY minute DESC, channel LIMIT 100",
};

export class SqlConsole {
  readonly #input: HTMLTextAreaElement;
  readonly #out: HTMLElement;
  #db: Promise<SqlDatabase> | undefined;
  /** The last result (tests read it). */
  last: A.Table | undefined;

  constructor(
    root: HTMLElement,
    readonly ns: TelemetryNamespace,
    readonly snapshot: () => ava.Snapshot | undefined,
  ) {
    root.innerHTML = `<p>${Object.keys(EXAMPLES)
      .map((k) => `<button type="button" data-example="${k}">${k}</button>`)
      .join(" ")}</p>
      <textarea id="sql-input" rows="5" spellcheck="false"></textarea>
      <p><button type="button" id="sql-run">Run (Ctrl+Enter)</button> <span id="sql-status"></span></p>
      <div id="sql-out"></div>`;
    this.#input = root.querySelector("#sql-input")!;
    this.#out = root.querySelector("#sql-out")!;
    this.#input.value = Object.values(EXAMPLES)[0]!;
    for (const b of root.querySelectorAll<HTMLButtonElement>("[data-example]"))
      b.addEventListener("click", () => {
        this.#input.value = EXAMPLES[b.dataset.example!]!;
        void this.run();
      });
    root.querySelector("#sql-run")!.addEventListener("click", () => void this.run());
    this.#input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) void this.run();
    });
  }

  /** Runs the console's query (at the pinned snapshot, if any) and shows the result. */
  async run(sql = this.#input.value): Promise<A.Table | undefined> {
    const status = this.#out.parentElement!.querySelector("#sql-status")!;
    status.textContent = this.#db ? "running…" : "loading DuckDB…";
    this.#out.replaceChildren();
    try {
      this.#db ??= open(this.ns);
      const db = await this.#db;
      const snap = this.snapshot();
      const started = performance.now();
      const result = await (snap ? db.at({ points: snap.id }) : db).query(sql);
      this.last = result;
      status.textContent = `${(performance.now() - started).toFixed(0)} ms${snap ? ` · at snapshot #${snap.sequenceNumber}` : ""} · ${db.loads.files} data files loaded into DuckDB so far`;
      renderChart(this.#out, result);
      renderTable(this.#out, result);
      return result;
    } catch (err) {
      const e = err as { code?: string; message: string };
      status.textContent = "";
      this.#out.innerHTML = "";
      this.#out.append(
        Object.assign(document.createElement("pre"), {
          className: "error",
          textContent: `${e.code ?? "ERROR"}: ${e.message}`,
        }),
      );
      return undefined;
    }
  }
}
