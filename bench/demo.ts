// The demo as a visitor runs it (`npm run bench -- demo`): `npm run demo:build` (the packed package), served by
// `vite preview`, in Debian's headless Chromium. Two measurements, from marks and counters the app keeps:
// - time to first chart: navigation to the app's `demo:first-chart` mark (set after uPlot drew the first
//   window with data), on a reload with 10 M points stored in OPFS (written through the library by the
//   simulator Worker's backfill: 11 channels at 100 Hz, one snapshot a minute), against the same with one
//   minute stored; uPlot's own figure (166,650 points drawn in 34 ms) is the reference for the drawing alone;
// - main-thread work per frame during the live tail, with the simulator writing 11 channels × 100 Hz and
//   the live stream sending 10 channels × 100 Hz from the page: the board's own timing of each frame's
//   scroll (to the end of uPlot's redraw), each redraw with new data, long tasks (PerformanceObserver) and
//   the frame interval, against the 8 ms goal and the 16.7 ms frame budget; then the main thread's CPU time
//   per animation frame from a Chromium trace, which a loaded machine does not inflate as it does wall time.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type Browser, chromium, type Page } from "playwright";
import { CHROMIUM_ARGS, chromiumPath } from "../scripts/chromium-path.mjs";
import { traceFrameCpu } from "./demo-frame-cpu.js";
import { median, percentile, printTable, type Row, ratio } from "./lib.js";

const REPO = new URL("..", import.meta.url).pathname;
const DEMO = join(REPO, "demo");
const RELOADS = 5;
const TAIL_MS = 20_000;
const CPU_TRACE_MS = 8_000;
const BIG = 10_000_000;
const SMALL = 11 * 100 * 60; // one minute of the simulator

/** What the page exposes for this bench (a slice of demo/src/main.ts's `window.demo`). */
interface DemoPage {
  simulator: {
    backfill(points: number): Promise<{ points: number; snapshots: number; ms: number; endMs: number }>;
  };
  board: {
    tailFrames: FrameSummary;
    redraws: FrameSummary;
  };
  live: { feed: { start(): void; stop(): void; enqueued: number } };
}
interface FrameSummary {
  reset(): void;
  summary(): { count: number; median: number; p95: number };
}
// page.evaluate sends its function's source alone: each one spells out the cast
type DemoWindow = { demo: DemoPage };

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

async function preview(ingestRoot: string): Promise<{ url: string; server: ChildProcess }> {
  const port = await freePort();
  const vite = join(DEMO, "node_modules/vite/bin/vite.js");
  const server = spawn(
    process.execPath,
    [vite, "preview", "--port", String(port), "--strictPort", "--host", "127.0.0.1"],
    {
      cwd: DEMO,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, DEMO_INGEST_ROOT: ingestRoot },
    },
  );
  const url = `http://127.0.0.1:${port}`;
  let log = "";
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      // biome-ignore lint/suspicious/noControlCharactersInRegex: vite colours its banner
      if (log.replace(/\x1b\[[0-9;]*m/g, "").includes(url)) resolve();
    };
    server.stdout!.on("data", onData);
    server.stderr!.on("data", onData);
    server.on("exit", (code) => reject(new Error(`vite preview exited with ${code}:\n${log}`)));
  });
  return { url, server };
}

async function open(page: Page, url: string): Promise<void> {
  await page.goto(url, { timeout: 120_000 });
  await page.waitForFunction(() => "demo" in window, null, { timeout: 120_000 });
}

/** Stores `points` in a fresh storage, then reloads RELOADS times: ms from navigation to the first chart. */
async function firstChart(page: Page, origin: string, points: number) {
  const url = `${origin}/?storage=bench-demo-${points}-${Date.now()}&sim=off`;
  await open(page, url);
  const stored = await page.evaluate(
    (n) => (window as unknown as DemoWindow).demo.simulator.backfill(n),
    points,
  );
  console.log(`  stored ${stored.points.toLocaleString()} points in ${(stored.ms / 1000).toFixed(1)} s`);
  const runs: { ms: number; open: number; read: number; worker: number }[] = [];
  for (let i = 0; i < RELOADS; i++) {
    // the 30 s ending with the stored points, however long ago they were written
    await open(page, `${url}&t1=${stored.endMs}`);
    await page.waitForFunction(() => performance.getEntriesByName("demo:first-chart").length > 0, null, {
      timeout: 300_000,
    });
    runs.push(
      await page.evaluate(() => {
        const chart = performance.getEntriesByName("demo:first-chart")[0] as PerformanceMark;
        const open = performance.getEntriesByName("demo:storage-open")[0]!;
        return {
          ms: chart.startTime,
          open: open.startTime,
          read: (chart.detail as { points: number }).points,
          worker: (chart.detail as { workerMs: number }).workerMs,
        };
      }),
    );
    console.log(`  reload ${i + 1}: first chart at ${runs.at(-1)!.ms.toFixed(0)} ms`);
  }
  return { stored, runs, url };
}

/** The live tail over TAIL_MS at `url`, with the simulator and the live stream running. */
async function liveTail(page: Page, url: string) {
  await open(page, url);
  await page.evaluate(() => (window as unknown as DemoWindow).demo.live.feed.start());
  await page.waitForTimeout(5_000); // a few commits and redraws first
  return page.evaluate(async (ms) => {
    const d = (window as unknown as DemoWindow).demo;
    d.board.tailFrames.reset();
    d.board.redraws.reset();
    const longTasks: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) longTasks.push(e.duration);
    });
    observer.observe({ type: "longtask" });
    const intervals: number[] = [];
    // no named functions in here: tsx would wrap them in a helper the page does not have
    let last = performance.now();
    const end = last + ms;
    while (last < end) {
      const now = await new Promise<number>((resolve) => requestAnimationFrame(resolve));
      intervals.push(now - last);
      last = now;
    }
    observer.disconnect();
    d.live.feed.stop();
    return {
      tail: d.board.tailFrames.summary(),
      redraw: d.board.redraws.summary(),
      longTasks,
      intervals,
      enqueued: d.live.feed.enqueued,
    };
  }, TAIL_MS);
}

/** Where the time to the first chart goes (medians). */
function phases(runs: { open: number; read: number; worker: number }[]): string {
  const m = (f: (r: (typeof runs)[number]) => number) => median(runs.map(f));
  return `storage open at ${m((r) => r.open).toFixed(0)} ms, ${m((r) => r.worker).toFixed(0)} ms in the chart Worker reading ${m((r) => r.read).toLocaleString()} points of the 30 s window`;
}

export async function benchDemo(): Promise<void> {
  await promisify(execFile)("npm", ["run", "demo:build", "--silent"], { cwd: REPO, maxBuffer: 64 * 2 ** 20 });
  const ingestRoot = await mkdtemp(join(tmpdir(), "bench-demo-ingest-"));
  const { url, server } = await preview(ingestRoot);
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({
      executablePath: chromiumPath() ?? "/usr/bin/chromium",
      args: CHROMIUM_ARGS,
    });
    const page = await (await browser.newContext({ viewport: { width: 1300, height: 1000 } })).newPage();
    page.on("pageerror", (e) => console.error("page error:", e.message));

    const small = await firstChart(page, url, SMALL);
    const big = await firstChart(page, url, BIG);
    const smallMs = median(small.runs.map((r) => r.ms));
    const bigMs = median(big.runs.map((r) => r.ms));
    const rows: Row[] = [
      {
        case: `first chart, ${small.stored.points.toLocaleString()} points stored (1 min)`,
        median_ms: smallMs,
        note: `${phases(small.runs)}`,
      },
      {
        case: `first chart, ${big.stored.points.toLocaleString()} points stored (${big.stored.snapshots} snapshots)`,
        median_ms: bigMs,
        ratio: ratio(bigMs, smallMs),
        note: `vs 1 min stored; ${phases(big.runs)}; the backfill took ${(big.stored.ms / 1000).toFixed(0)} s`,
      },
    ];
    printTable(
      `demo: navigation → first drawn chart, median of ${RELOADS} reloads (uPlot: 166,650 points drawn in 34 ms)`,
      rows,
    );

    // on the 10 M points' storage, the simulator on
    const t = await liveTail(page, big.url.replace("&sim=off", ""));
    // the same tail again, traced: the page's CPU time per frame, which the machine's load does not inflate
    await page.evaluate(() => (window as unknown as DemoWindow).demo.live.feed.start());
    const cpu = await traceFrameCpu(page, CPU_TRACE_MS);
    await page.evaluate(() => (window as unknown as DemoWindow).demo.live.feed.stop());
    const longTotal = t.longTasks.reduce((a, b) => a + b, 0);
    printTable(
      `demo: main-thread work per frame, live tail, simulator 11 ch × 100 Hz + live stream 10 ch × 100 Hz, ${TAIL_MS / 1000} s`,
      [
        {
          case: `live tail scroll, ${t.tail.count} frames`,
          median_ms: t.tail.median,
          ratio: ratio(t.tail.median, 8),
          note: `p95 ${t.tail.p95.toFixed(2)} ms; ratio vs the 8 ms goal`,
        },
        {
          case: `animation frame, main-thread CPU time, ${cpu.frames.length} frames`,
          median_ms: cpu.median,
          ratio: ratio(cpu.median, 8),
          note: `p95 ${cpu.p95.toFixed(2)} ms, max ${Math.max(0, ...cpu.frames).toFixed(2)} ms (Chromium trace thread time, ${CPU_TRACE_MS / 1000} s); ${cpu.longTasks.length} tasks over 50 ms of CPU; ratio vs the 8 ms goal`,
        },
        {
          case: `redraw with new data, ${t.redraw.count} commits`,
          median_ms: t.redraw.median,
          ratio: ratio(t.redraw.median, 8),
          note: `p95 ${t.redraw.p95.toFixed(2)} ms; once a commit (1/s), not every frame`,
        },
        {
          case: `frame interval, ${t.intervals.length} frames`,
          median_ms: median(t.intervals),
          ratio: ratio(median(t.intervals), 1000 / 60),
          note: `p95 ${percentile(t.intervals, 95).toFixed(1)} ms; vs the 16.7 ms budget; ${t.intervals.filter((i) => i > 25).length} over 25 ms`,
        },
        {
          case: `long tasks (> 50 ms), ${t.longTasks.length}`,
          median_ms: t.longTasks.length ? median(t.longTasks) : 0,
          note: `${longTotal.toFixed(0)} ms in all over ${TAIL_MS / 1000} s; ${t.enqueued.toLocaleString()} points streamed live`,
        },
      ],
    );
  } finally {
    await browser?.close();
    if (server.pid && server.exitCode === null) process.kill(-server.pid, "SIGTERM");
    await rm(ingestRoot, { recursive: true, force: true });
  }
}
