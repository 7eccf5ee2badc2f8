// One uPlot time-series panel. Panels share a cursor (uPlot's sync key) and report the user's zoom (drag a
// range), wheel zoom and shift+wheel pan to the board, which owns the time window.
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { PanelSpec } from "./panels.js";

const COLORS = ["#2563eb", "#dc2626", "#059669", "#d97706", "#7c3aed", "#db2777", "#0891b2"];

export interface PanelEvents {
  /** A new window, in epoch ms. */
  zoom(t0: number, t1: number): void;
  /** Back to the live tail. */
  reset(): void;
}

export class Panel {
  readonly plot: uPlot;

  constructor(
    readonly spec: PanelSpec,
    parent: HTMLElement,
    width: number,
    events: PanelEvents,
  ) {
    const box = document.createElement("section");
    box.className = "panel";
    box.dataset.panel = spec.title;
    parent.append(box);
    this.plot = new uPlot(
      {
        title: spec.title,
        width,
        height: 170,
        // y is set from each new data (setData), not re-fitted on every scrolled frame of the live tail:
        // a re-fit there changed the y labels' width, and uPlot then laid the panel out again in that frame
        scales: { x: { time: true }, y: { auto: false } },
        series: [
          {},
          ...spec.series.map((s, i) => ({
            label: s.key,
            stroke: COLORS[i % COLORS.length]!,
            width: 1,
            spanGaps: true,
            ...(s.column === "long" || s.column === "string"
              ? { paths: uPlot.paths.stepped!({ align: 1 }) }
              : {}),
          })),
        ],
        cursor: { sync: { key: "telemetry" }, drag: { x: true, y: false, setScale: false } },
        legend: { live: true },
        hooks: {
          setSelect: [
            (u) => {
              if (u.select.width < 3) return;
              const t0 = u.posToVal(u.select.left, "x") * 1000;
              const t1 = u.posToVal(u.select.left + u.select.width, "x") * 1000;
              u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
              events.zoom(t0, t1);
            },
          ],
        },
      },
      [[], ...spec.series.map(() => [])],
      box,
    );
    this.plot.over.addEventListener("dblclick", () => events.reset());
    this.plot.over.addEventListener(
      "wheel",
      (e) => {
        e.preventDefault();
        const { min, max } = this.plot.scales.x!;
        if (min === undefined || max === undefined) return;
        const span = max - min;
        if (e.shiftKey) {
          const shift = (Math.sign(e.deltaY || e.deltaX) * span) / 10;
          events.zoom((min + shift) * 1000, (max + shift) * 1000);
          return;
        }
        const at = this.plot.posToVal(e.offsetX, "x");
        const k = e.deltaY > 0 ? 1.25 : 0.8;
        events.zoom((at - (at - min) * k) * 1000, (at + (max - at) * k) * 1000);
      },
      { passive: false },
    );
  }

  setData(x: number[], ys: (number | null)[][]): void {
    this.plot.setData([x, ...ys] as uPlot.AlignedData, false);
    const [min, max] = extent(ys);
    if (min <= max) {
      const pad = (max - min) * 0.05 || Math.abs(max) * 0.05 || 1;
      this.plot.setScale("y", { min: min - pad, max: max + pad });
    }
  }

  /** Moves the visible window (seconds) without new data: the live tail's scroll between commits. */
  setWindow(t0: number, t1: number): void {
    this.plot.setScale("x", { min: t0 / 1000, max: t1 / 1000 });
  }

  resize(width: number): void {
    this.plot.setSize({ width, height: 170 });
  }
}

/** The lowest and highest value of all series (min > max when there is none). */
function extent(ys: (number | null)[][]): [number, number] {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const series of ys)
    for (const y of series)
      if (y !== null) {
        if (y < min) min = y;
        if (y > max) max = y;
      }
  return [min, max];
}
