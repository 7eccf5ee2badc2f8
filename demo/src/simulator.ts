// The page's handle on the simulator Worker: start/stop, and a line saying what it wrote last; `backfill`
// writes history in bulk (`npm run bench -- demo` stores 10 M points with it).
import type { SimulatorCommand, SimulatorReport } from "./simulator.worker.js";

type Backfilled = Extract<SimulatorReport, { type: "backfilled" }>;

export interface Simulator {
  stop(): void;
  /** Writes `points` points of history (11 channels at 100 Hz, ending now), a minute of samples a snapshot. */
  backfill(points: number): Promise<Backfilled>;
}

export function startSimulator(root: HTMLElement, storage: string, autostart: boolean): Simulator {
  const worker = new Worker(new URL("./simulator.worker.ts", import.meta.url), { type: "module" });
  let running = false;
  let written = 0;
  root.innerHTML = `<button type="button" id="sim-toggle"></button> <span id="sim-status"></span>`;
  const button = root.querySelector<HTMLButtonElement>("#sim-toggle")!;
  const status = root.querySelector<HTMLElement>("#sim-status")!;
  const send = (c: SimulatorCommand) => worker.postMessage(c);
  const set = (on: boolean) => {
    running = on;
    send(on ? { type: "start", storage, hz: 100, flushMs: 1000 } : { type: "stop" });
    button.textContent = on ? "Stop simulator" : "Start simulator";
    if (!on) status.textContent = "simulator stopped";
  };
  let backfilled: ((r: Backfilled) => void) | undefined;
  worker.onmessage = (e: MessageEvent<SimulatorReport>) => {
    if (e.data.type === "error") status.textContent = `simulator: ${e.data.message}`;
    else if (e.data.type === "backfilled") {
      status.textContent = `backfilled ${e.data.points.toLocaleString()} points in ${e.data.snapshots} snapshots`;
      backfilled?.(e.data);
    } else {
      written += e.data.points;
      status.textContent = `simulator: 11 channels × 100 Hz · ${written.toLocaleString()} points written · last append ${e.data.appendMs.toFixed(0)} ms`;
    }
  };
  button.addEventListener("click", () => set(!running));
  set(autostart);
  return {
    stop: () => set(false),
    backfill: (points) =>
      new Promise((resolve) => {
        backfilled = resolve;
        send({ type: "backfill", storage, hz: 100, points });
      }),
  };
}
