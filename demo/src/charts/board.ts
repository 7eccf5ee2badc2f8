// The chart board: the panels, one shared time window, and the live tail. Live, the window follows the
// clock every animation frame (a scale change, no new data), and data is re-read when the raw table commits;
// zoomed, panned or at a past snapshot, it is re-read for exactly the window shown. Every read goes to the
// chart Worker, which returns min/max per pixel.
import { DownsampleClient, type Answer } from "./downsample-client.js";
import { whenIdle } from "../idle.js";
import { FrameStats } from "./frame-stats.js";
import { Panel } from "./panel.js";
import { PANELS } from "./panels.js";

/**
 * Screen pixels per min/max bucket: 1 for a still window (zoomed, panned, a snapshot), 2 for the live tail,
 * which uPlot redraws from its data on every scrolled frame: building and stroking the paths is most of a
 * frame's main-thread time, and half the points keep that well inside the 8 ms goal; the envelope (every
 * spike's min and max) is kept, two pixels wide.
 */
const PX_PER_BUCKET = { still: 1, live: 2 };

export interface BoardView {
  live: boolean;
  /** The window, epoch ms (t1 follows the clock while live). */
  t0: number;
  t1: number;
  /** Time travel: read the raw table as of this snapshot. */
  snapshotId?: string;
}

export class Board {
  readonly panels: Panel[];
  readonly #client = new DownsampleClient();
  readonly #storage: string;
  readonly #status: HTMLElement;
  #view: BoardView;
  #frame = 0;
  #drawn = false;
  /** What the last read drew (tests and the status line read it). */
  last: Answer | undefined;
  /** Main-thread time of the live tail's per-frame scroll, and of each redraw with new data. */
  readonly tailFrames = new FrameStats();
  readonly redraws = new FrameStats(60);

  constructor(root: HTMLElement, storage: string, spanMs = 30_000) {
    this.#storage = storage;
    this.#status = document.createElement("p");
    this.#status.className = "board-status";
    root.append(this.#status);
    const grid = document.createElement("div");
    grid.className = "panels";
    root.append(grid);
    const now = Date.now();
    this.#view = { live: true, t0: now - spanMs, t1: now };
    const width = this.#panelWidth(root);
    const events = {
      zoom: (t0: number, t1: number) => this.show({ live: false, t0, t1, ...this.#at() }),
      reset: () => this.follow(),
    };
    this.panels = PANELS.map((spec) => new Panel(spec, grid, width, events));
    addEventListener("resize", () => {
      for (const p of this.panels) p.resize(this.#panelWidth(root));
    });
    this.#tail();
  }

  get view(): BoardView {
    return { ...this.#view };
  }

  #at(): { snapshotId?: string } {
    return this.#view.snapshotId ? { snapshotId: this.#view.snapshotId } : {};
  }

  #panelWidth(root: HTMLElement): number {
    return Math.max(320, Math.min(root.clientWidth || 900, 1400) - 20);
  }

  /** Back to the live tail over the current span, at the newest snapshot. */
  follow(): void {
    const span = this.#view.t1 - this.#view.t0;
    const now = Date.now();
    this.show({ live: true, t0: now - span, t1: now });
  }

  /** Shows a window (and snapshot), reading its data. */
  show(view: BoardView): void {
    this.#view = { ...view };
    for (const p of this.panels) p.setWindow(view.t0, view.t1);
    void this.refresh();
  }

  /** Re-reads the current window: on a commit while live, or after a change of window. */
  async refresh(): Promise<void> {
    const v = this.#view;
    const width = this.panels[0]?.plot.bbox.width ?? 800;
    // a live read covers a little past now, so points landing before the next commit still fit
    const t1 = v.live ? Date.now() + 2_000 : v.t1;
    try {
      const answer = await this.#client.request({
        storage: this.#storage,
        series: this.panels.flatMap((p) => p.spec.series),
        t0: v.t0,
        t1,
        width: Math.max(100, Math.round(width / devicePixelRatio / PX_PER_BUCKET[v.live ? "live" : "still"])),
        ...this.#at(),
      });
      if (!answer) return; // superseded
      this.redraws.time(() => {
        let at = 0;
        for (const p of this.panels) {
          p.setData(answer.x, answer.ys.slice(at, at + p.spec.series.length));
          at += p.spec.series.length;
          p.setWindow(this.#view.t0, this.#view.t1);
        }
      });
      // after uPlot's redraw (a microtask queued by setData): what `npm run bench -- demo` times from navigation
      if (!this.#drawn && answer.points > 0) {
        this.#drawn = true;
        queueMicrotask(() =>
          performance.mark("demo:first-chart", { detail: { points: answer.points, workerMs: answer.ms } }),
        );
      }
      this.last = answer;
      const where = v.snapshotId ? `snapshot ${v.snapshotId.slice(0, 10)}…` : v.live ? "live" : "zoomed";
      whenIdle(() => {
        const tail = this.tailFrames.summary();
        this.#status.textContent = `${where} · ${answer.points.toLocaleString()} points read → ${answer.x.length} per series · ${answer.ms.toFixed(0)} ms in the chart Worker · live tail ${tail.median.toFixed(1)} ms a frame (p95 ${tail.p95.toFixed(1)})`;
      });
    } catch (err) {
      this.#status.textContent = `chart read failed: ${(err as Error).message}`;
    }
  }

  /** Live: slide the window with the clock, at most a frame a pixel (uPlot redraws only the scale change). */
  #tail(): void {
    const step = () => {
      const span = this.#view.t1 - this.#view.t0;
      // scroll only once the window has moved a whole pixel: a redraw in between would change nothing seen
      const msPerPixel = (span * devicePixelRatio) / (this.panels[0]?.plot.bbox.width || 800);
      if (this.#view.live && !document.hidden && Date.now() - this.#view.t1 >= msPerPixel) {
        this.#view.t1 = Date.now();
        this.#view.t0 = this.#view.t1 - span;
        const { t0, t1 } = this.#view;
        this.tailFrames.time(() => {
          for (const p of this.panels) p.setWindow(t0, t1);
        });
      }
      this.#frame = requestAnimationFrame(step);
    };
    this.#frame = requestAnimationFrame(step);
  }

  stop(): void {
    cancelAnimationFrame(this.#frame);
  }
}
