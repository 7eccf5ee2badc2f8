// The main thread's CPU time per animation frame, from a Chromium trace (`tdur`, thread time): unlike the
// page's own wall-clock timing it does not count the time the thread waited for a core, so it tells the
// page's own work from the machine's load (the 2 shared cores here, with the page's Workers beside it).
import type { Page } from "playwright";
import { median, percentile } from "./lib.js";

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string };
}

export interface FrameCpu {
  /** CPU ms of each animation-frame callback run (the tail's scroll, uPlot's redraw in its microtasks). */
  frames: number[];
  /** CPU ms of every main-thread task over 50 ms of CPU (a long task the machine's load cannot explain). */
  longTasks: number[];
  median: number;
  p95: number;
}

/** Traces the page for `ms` and returns the main thread's CPU time per animation frame. */
export async function traceFrameCpu(page: Page, ms: number): Promise<FrameCpu> {
  const cdp = await page.context().newCDPSession(page);
  const events: TraceEvent[] = [];
  cdp.on("Tracing.dataCollected", (e) => events.push(...(e.value as unknown as TraceEvent[])));
  const complete = new Promise((resolve) => cdp.once("Tracing.tracingComplete", resolve));
  await cdp.send("Tracing.start", {
    categories: "devtools.timeline,disabled-by-default-devtools.timeline",
    transferMode: "ReportEvents",
  });
  await page.waitForTimeout(ms);
  await cdp.send("Tracing.end");
  await complete;
  await cdp.detach();
  // the renderer's main thread: the one that ran animation frames
  const frame = events.find((e) => e.name === "FireAnimationFrame");
  if (!frame) throw new Error("the trace has no animation frame: was the page visible?");
  const onMain = events.filter((e) => e.pid === frame.pid && e.tid === frame.tid && e.ph === "X");
  const cpuMs = (e: TraceEvent) => (e.tdur ?? 0) / 1000;
  const frames = onMain.filter((e) => e.name === "FireAnimationFrame").map(cpuMs);
  const longTasks = onMain.filter((e) => e.name === "RunTask" && cpuMs(e) > 50).map(cpuMs);
  return { frames, longTasks, median: median(frames), p95: percentile(frames, 95) };
}
