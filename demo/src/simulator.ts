// The page's handle on the simulator Worker: start/stop, and a line saying what it wrote last.
import type { SimulatorCommand, SimulatorReport } from "./simulator.worker.js";

export function startSimulator(root: HTMLElement, storage: string, autostart: boolean): { stop(): void } {
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
  worker.onmessage = (e: MessageEvent<SimulatorReport>) => {
    if (e.data.type === "error") status.textContent = `simulator: ${e.data.message}`;
    else {
      written += e.data.points;
      status.textContent = `simulator: 11 channels × 100 Hz · ${written.toLocaleString()} points written · last append ${e.data.appendMs.toFixed(0)} ms`;
    }
  };
  button.addEventListener("click", () => set(!running));
  set(autostart);
  return { stop: () => set(false) };
}
