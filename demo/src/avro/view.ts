// The "Avro in/out" tab: drop or pick Avro stream files (progress, then their channels and a chart of them),
// and export a time range as an Avro stream or Parquet file.
import type { Board } from "../charts/board.js";
import { DownsampleClient } from "../charts/downsample-client.js";
import type { SeriesSpec } from "../charts/downsample.js";
import { Panel } from "../charts/panel.js";
import type { TelemetryNamespace } from "../namespace.js";
import { download, exportAvro, exportParquet } from "./export.js";
import { type ImportSummary, importAvro } from "./import.js";

export class AvroView {
  readonly imports: ImportSummary[] = [];
  readonly #root: HTMLElement;
  readonly #client = new DownsampleClient();
  /** The last export (tests read it). */
  lastExport: { name: string; bytes: number; points: number } | undefined;

  constructor(
    root: HTMLElement,
    readonly ns: TelemetryNamespace,
    readonly storageName: string,
    readonly board: Board,
  ) {
    this.#root = root;
    root.innerHTML = `<h3>Import</h3>
      <div class="drop" id="drop">Drop Avro stream files here, or <input type="file" id="avro-file" multiple accept=".avro"></div>
      <progress id="avro-progress" max="1" value="0"></progress> <span id="avro-status"></span>
      <div id="avro-imports"></div>
      <h3>Export</h3>
      <p><select id="export-range">
        <option value="view">the charts' window</option>
        <option value="60000">the last minute</option>
        <option value="600000">the last 10 minutes</option>
      </select>
      <button type="button" id="export-avro">Export Avro stream</button>
      <button type="button" id="export-parquet">Export Parquet</button> <span id="export-status"></span></p>`;
    const drop = root.querySelector<HTMLElement>("#drop")!;
    drop.addEventListener("dragover", (e) => {
      e.preventDefault();
      drop.classList.add("over");
    });
    drop.addEventListener("dragleave", () => drop.classList.remove("over"));
    drop.addEventListener("drop", (e) => {
      e.preventDefault();
      drop.classList.remove("over");
      void this.importFiles([...(e.dataTransfer?.files ?? [])]);
    });
    const input = root.querySelector<HTMLInputElement>("#avro-file")!;
    input.addEventListener("change", () => void this.importFiles([...(input.files ?? [])]));
    root.querySelector("#export-avro")!.addEventListener("click", () => void this.export("avro"));
    root.querySelector("#export-parquet")!.addEventListener("click", () => void this.export("parquet"));
  }

  async importFiles(files: File[]): Promise<void> {
    const progress = this.#root.querySelector<HTMLProgressElement>("#avro-progress")!;
    const status = this.#root.querySelector<HTMLElement>("#avro-status")!;
    for (const file of files) {
      status.textContent = `reading ${file.name}…`;
      try {
        const summary = await importAvro(this.ns, file, (f) => {
          progress.value = f;
        });
        this.imports.push(summary);
        status.textContent = `${file.name}: ${summary.points.toLocaleString()} points appended`;
        this.#show(summary);
      } catch (err) {
        const e = err as { code?: string; message: string };
        status.innerHTML = "";
        status.append(
          Object.assign(document.createElement("span"), {
            className: "error",
            textContent: `${file.name}: ${e.code ?? "ERROR"}: ${e.message}`,
          }),
        );
      }
    }
  }

  /** The file's channels, and a chart of its numeric ones over the file's time range. */
  #show(s: ImportSummary): void {
    const box = document.createElement("div");
    box.className = "import";
    box.dataset.file = s.file;
    box.innerHTML = `<h4>${s.file}: ${new Date(s.first).toISOString()} → ${new Date(s.last).toISOString()}</h4>
      <ul>${s.channels.map((c) => `<li data-channel="${c.name}">${c.name} (${c.kind}): ${c.points.toLocaleString()} points</li>`).join("")}</ul>`;
    this.#root.querySelector("#avro-imports")!.prepend(box);
    const series: SeriesSpec[] = s.channels
      .filter((c) => c.kind === "double" || c.kind === "long")
      .map((c) => ({ key: c.name, channel: c.name, column: c.kind as "double" | "long" }));
    if (series.length === 0) return;
    const pad = Math.max(1, (s.last - s.first) * 0.02);
    const load = async (t0: number, t1: number) => {
      const r = await this.#client.request({ storage: this.storageName, series, t0, t1, width: 800 });
      if (!r) return;
      panel.setData(r.x, r.ys);
      panel.setWindow(t0, t1);
    };
    const panel = new Panel(
      { title: `${s.file} (drag to zoom, double-click to reset)`, series },
      box,
      Math.min(1200, this.#root.clientWidth || 900),
      {
        zoom: (t0, t1) => void load(t0, t1),
        reset: () => void load(s.first - pad, s.last + pad),
      },
    );
    void load(s.first - pad, s.last + pad);
  }

  async export(format: "avro" | "parquet"): Promise<void> {
    const status = this.#root.querySelector<HTMLElement>("#export-status")!;
    const choice = this.#root.querySelector<HTMLSelectElement>("#export-range")!.value;
    const view = this.board.view;
    const [t0, t1] = choice === "view" ? [view.t0, view.t1] : [Date.now() - Number(choice), Date.now()];
    status.textContent = "exporting…";
    try {
      const out =
        format === "avro"
          ? await exportAvro(this.ns, t0, t1, view.snapshotId)
          : await exportParquet(this.ns, t0, t1, view.snapshotId);
      const stamp = new Date(t0).toISOString().replace(/[:.]/g, "-");
      const name = `telemetry-${stamp}.${format}`;
      this.lastExport = { name, bytes: out.bytes.byteLength, points: out.points };
      status.textContent = `${name}: ${out.points.toLocaleString()} points, ${(out.bytes.byteLength / 1024).toFixed(0)} KiB`;
      download(out.bytes, name);
    } catch (err) {
      const e = err as { code?: string; message: string };
      status.textContent = `${e.code ?? "ERROR"}: ${e.message}`;
    }
  }
}
