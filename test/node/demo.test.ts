// The demo as a visitor gets it: `npm run demo:build` (the repository built and packed, the tarball installed
// into demo/, `vite build`, the precache list), served by `vite preview`, driven in Debian's Chromium. The
// simulator runs; charts draw points; SQL runs; an Avro file is dropped and its channels appear (a damaged one
// is refused, nothing appended); a range is exported; the rollup runs in Web Workers and its run, DAG and
// rows' lineage show; the time-travel slider pins a snapshot for charts and SQL; the live stream goes offline,
// keeps its batches in the outbox and drains them to the ingest endpoint served next to the app, every point
// once; then, offline, a reload boots from the service worker with the same data. Screenshots of each view go
// to test-artifacts/demo/.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, chromiumPath } from "../../scripts/chromium-path.mjs";
import { avroStreamArrowSchema, openAvroStream } from "../../src/avro.js";
import { defineNamespace, nodeStorage, table } from "../../src/node.js";
import { demoAvroFixture, FIXTURE_START_MS } from "../support/demo-avro-fixture.js";
import "../support/demo-window.js";

const run = promisify(execFile);
const REPO = new URL("../..", import.meta.url).pathname;
const DEMO = join(REPO, "demo");
const SHOTS = join(REPO, "test-artifacts", "demo");
const MINUTES = 60_000;

let server: ChildProcess | undefined;
let browser: Browser | undefined;
let context: BrowserContext | undefined;
let page: Page;
let origin = "";
/** The ingest endpoint's table (demo/ingest-plugin.ts), fresh for this run. */
let ingestRoot = "";
const problems: string[] = [];

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

async function preview(): Promise<string> {
  const port = await freePort();
  const vite = join(DEMO, "node_modules/vite/bin/vite.js");
  const args = [vite, "preview", "--port", String(port), "--strictPort", "--host", "127.0.0.1"];
  server = spawn(process.execPath, args, {
    cwd: DEMO,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, DEMO_INGEST_ROOT: ingestRoot },
  });
  const url = `http://127.0.0.1:${port}`;
  let log = "";
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      // biome-ignore lint/suspicious/noControlCharactersInRegex: vite colours its banner
      if (log.replace(/\x1b\[[0-9;]*m/g, "").includes(url)) resolve();
    };
    server!.stdout!.on("data", onData);
    server!.stderr!.on("data", onData);
    server!.on("exit", (code) => reject(new Error(`vite preview exited with ${code}:\n${log}`)));
  });
  return url;
}

const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
const tab = (name: string) => page.click(`nav button[data-tab=${name}]`);

/** Drops files on the import zone the way a browser does: a drop event carrying a DataTransfer. */
async function drop(files: { name: string; bytes: Uint8Array }[]): Promise<void> {
  const transfer = await page.evaluateHandle(
    (list) => {
      const dt = new DataTransfer();
      for (const f of list) dt.items.add(new File([new Uint8Array(f.bytes)], f.name));
      return dt;
    },
    files.map((f) => ({ name: f.name, bytes: [...f.bytes] })),
  );
  await page.dispatchEvent("#drop", "drop", { dataTransfer: transfer });
}

/** Non-background pixels of each chart canvas. */
function inkPerPanel(): Promise<number[]> {
  return page.evaluate(() =>
    window.demo.board.panels.map((p) => {
      const canvas = p.plot.ctx.canvas;
      const { data } = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height);
      let ink = 0;
      // series strokes are saturated colours; axes and grid are grey
      for (let i = 0; i < data.length; i += 4)
        if (
          Math.max(data[i]!, data[i + 1]!, data[i + 2]!) - Math.min(data[i]!, data[i + 1]!, data[i + 2]!) >
          60
        )
          ink++;
      return ink;
    }),
  );
}

describe(
  "the demo, built from the packed package",
  () => {
    beforeAll(async () => {
      await mkdir(SHOTS, { recursive: true });
      await run("npm", ["run", "demo:build", "--silent"], {
        cwd: REPO,
        maxBuffer: 64 * 1024 * 1024,
      });
      ingestRoot = await mkdtemp(join(tmpdir(), "demo-ingest-"));
      origin = await preview();
      browser = await chromium.launch({
        executablePath: chromiumPath() ?? "/usr/bin/chromium",
        args: CHROMIUM_ARGS,
      });
      context = await browser.newContext({ viewport: { width: 1300, height: 1000 }, acceptDownloads: true });
      page = await context.newPage();
      page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
      await page.goto(`${origin}/?storage=demo-test-${Date.now()}`);
    }, 8 * MINUTES);

    afterAll(async () => {
      await browser?.close();
      if (server?.pid && server.exitCode === null) process.kill(-server.pid, "SIGTERM");
      if (ingestRoot) await rm(ingestRoot, { recursive: true, force: true });
    });

    it("draws the simulator's channels, live", async () => {
      await page.waitForFunction(() => (window.demo?.board.last?.points ?? 0) > 2_000, null, {
        timeout: 2 * MINUTES,
      });
      const panels = await page.evaluate(() =>
        window.demo.board.panels.map((p) => ({
          series: p.spec.series.length,
          x: p.plot.data[0]!.length,
          drawn: p.plot.data.slice(1).map((ys) => ys.filter((y) => y !== null && y !== undefined).length),
        })),
      );
      expect(panels).toHaveLength(7);
      for (const p of panels) {
        expect(p.x).toBeGreaterThan(10);
        for (const n of p.drawn) expect(n).toBeGreaterThan(10); // every series of every panel has points
      }
      for (const ink of await inkPerPanel()) expect(ink).toBeGreaterThan(50); // a drawn line, even a flat one
      // min/max per pixel: never more than two points per pixel column, however many were read
      const { x, points } = await page.evaluate(() => ({
        x: window.demo.board.last!.x.length,
        points: window.demo.board.last!.points,
      }));
      expect(x).toBeLessThanOrEqual(2 * 1300);
      expect(points).toBeGreaterThan(x);
      await shot("1-charts");
      // what follows needs no more live data, and every raw snapshot is one more file for DuckDB to load
      await page.click("#sim-toggle");
    });

    it("runs SQL over the namespace, as a table and as a chart; a bad query shows SQL_ERROR", async () => {
      await tab("sql");
      await page.waitForFunction(() => window.demo.sql.last !== undefined, null, { timeout: 3 * MINUTES });
      const perChannel = await page.evaluate(() =>
        window.demo.sql
          .last!.toArray()
          .map((r) => ({ channel: String(r.channel), points: Number(r.points) })),
      );
      expect(perChannel.map((r) => r.channel)).toEqual(
        expect.arrayContaining(["engine.rpm", "state", "wheel.speeds", "fault.code"]),
      );
      for (const r of perChannel) expect(r.points).toBeGreaterThan(0);
      await page.click("button[data-example='RPM, 1 s buckets']");
      await page.waitForSelector(".sql-chart canvas", { timeout: MINUTES });
      expect(await page.locator("#sql-out table.result tr").count()).toBeGreaterThan(2);
      await shot("2-sql");
      const bad = await page.evaluate(() => window.demo.sql.run("SELECT nope FROM points"));
      expect(bad).toBeUndefined();
      expect(await page.textContent("#sql-out .error")).toMatch(/^SQL_ERROR: .*nope/);
    });

    it("ingests a dropped Avro file with its channels; refuses a damaged one; exports a range", async () => {
      await tab("data");
      const fixture = await demoAvroFixture();
      const before = await page.evaluate(async () => (await window.demo.ns.points.history()).length);
      await drop([{ name: "damaged.avro", bytes: fixture.slice(0, 300) }]);
      await page.waitForSelector("#avro-status .error", { timeout: MINUTES });
      expect(await page.textContent("#avro-status")).toMatch(/damaged\.avro: AVRO_/);
      // nothing of it appended: every snapshot since came from the simulator
      const since = await page.evaluate(
        async (n) => (await window.demo.ns.points.history()).slice(n).map((s) => s.addedRows % 11),
        before,
      );
      expect(since.every((r) => r === 0)).toBe(true);

      await drop([{ name: "bench.avro", bytes: fixture }]);
      await page.waitForSelector("[data-file='bench.avro'] li[data-channel='bench.mode']", {
        timeout: MINUTES,
      });
      expect(await page.textContent("[data-file='bench.avro']")).toContain(
        "bench.pressure (double): 1,000 points",
      );
      expect(
        await page.evaluate(() => document.querySelector<HTMLProgressElement>("#avro-progress")!.value),
      ).toBe(1);
      const stored = await page.evaluate(async () => {
        const t = await window.demo.ns.points
          .scan({ filter: (w) => w.eq("channel", "bench.pressure") })
          .toArrow();
        return { rows: t.numRows, first: Number(t.getChild("timestamp")!.data[0]!.values[0]) / 1e6 };
      });
      expect(stored).toEqual({ rows: 1000, first: FIXTURE_START_MS });
      await page.waitForFunction(
        () => (document.querySelector("[data-file='bench.avro'] canvas") as HTMLCanvasElement | null)?.width,
        null,
        { timeout: MINUTES },
      );
      await shot("3-avro");

      // not "the charts' window": the simulator stopped after the first test, and on a busy machine its last
      // points may be older than the live 30 s by now
      await page.selectOption("#export-range", "600000");
      const download = page.waitForEvent("download");
      await page.click("#export-avro");
      const file = await download;
      const bytes = new Uint8Array(await readFile((await file.path())!));
      let points = 0;
      const channels = new Set<string>();
      for await (const rec of (await openAvroStream(bytes)).records()) {
        points += rec.timestamps.length;
        channels.add(rec.channel);
      }
      expect(points).toBe(await page.evaluate(() => window.demo.avro.lastExport!.points));
      expect(channels).toContain("engine.rpm");
      const parquet = page.waitForEvent("download");
      await page.click("#export-parquet");
      const pq = new Uint8Array(await readFile((await (await parquet).path())!));
      expect(new TextDecoder().decode(pq.slice(0, 4))).toBe("PAR1");
    });

    it("runs the rollup in Web Workers and shows the run, its DAG and its rows' lineage", async () => {
      await tab("workflows");
      await page.click("#run-rollup");
      await page.waitForFunction(() => window.demo.runs.lastRun !== undefined, null, {
        timeout: 3 * MINUTES,
      });
      const last = await page.evaluate(() => window.demo.runs.lastRun!);
      expect(last.status).toBe("success");
      await page.waitForSelector(`#run-list tr[data-run-id='${last.runId}']`, { timeout: MINUTES });
      expect(await page.locator("#run-dag .node.succeeded").count()).toBe(3);
      const lineage = await page.evaluate(
        (runId) => window.demo.ns.rollups.scan({ filter: (w) => w.eq("_ava_run_id", runId) }).toObjects(),
        last.runId,
      );
      expect(lineage.length).toBeGreaterThan(0);
      for (const row of lineage as { _ava_node_slug: string; min: number; mean: number; max: number }[]) {
        expect(["rollup_engine", "rollup_motion"]).toContain(row._ava_node_slug);
        expect(row.min).toBeLessThanOrEqual(row.mean);
        expect(row.mean).toBeLessThanOrEqual(row.max);
      }
      expect(await page.textContent("#lineage")).toContain(last.runId);
      await shot("4-workflows");
    });

    it("travels back: the slider pins a snapshot for the charts and SQL", async () => {
      const target = await page.evaluate(async () => {
        await window.demo.timeTravel.reload();
        const history = await window.demo.ns.points.history();
        const index = Math.floor(history.length / 2);
        const slider = document.querySelector<HTMLInputElement>("#tt-slider")!;
        slider.value = String(index);
        slider.dispatchEvent(new Event("input"));
        return history[index]!;
      });
      expect(await page.evaluate(() => window.demo.board.view)).toMatchObject({
        live: false,
        snapshotId: target.id,
      });
      const count = await page.evaluate(async () => {
        const t = await window.demo.sql.run("SELECT count(*)::INTEGER AS n FROM points");
        return t ? Number(t.get(0)!.n) : -1;
      });
      expect(count).toBe(target.totalRows);
      await page.waitForFunction(
        (id) =>
          window.demo.board.last &&
          document.querySelector(".board-status")?.textContent?.includes(id.slice(0, 10)),
        target.id,
        { timeout: MINUTES },
      );
      await tab("charts");
      await shot("5-time-travel");
      await page.click("#tt-latest");
      expect(await page.evaluate(() => window.demo.board.view.live)).toBe(true);
    });

    it("streams live: offline the outbox keeps every batch, online it drains, each point lands once", async () => {
      await tab("live");
      const status = () => page.evaluate(() => window.demo.live.stream.status());
      await page.click("#live-toggle");
      await page.waitForFunction(() => window.demo.live.stream.status().batchesSent >= 1, null, {
        timeout: MINUTES,
      });
      expect(await page.getAttribute("#live-net", "data-state")).toBe("online");

      await context!.setOffline(true);
      await page.waitForFunction(() => window.demo.live.stream.status().batchesInOutbox >= 3, null, {
        timeout: MINUTES,
      });
      expect(await page.getAttribute("#live-net", "data-state")).toBe("offline");
      const offline = await status();
      expect(offline.online).toBe(false);
      expect(offline.bytesInOutbox).toBeGreaterThan(0);
      // the page shows the outbox it holds (rendered four times a second)
      await page.waitForFunction(
        (n) => document.querySelector("[data-counter=batchesInOutbox]")?.textContent === String(n),
        (await status()).batchesInOutbox,
        { timeout: 5_000 },
      );
      await shot("6-live-offline");

      await context!.setOffline(false);
      await page.waitForFunction(() => window.demo.live.stream.status().batchesInOutbox === 0, null, {
        timeout: MINUTES,
      });
      await page.click("#live-toggle"); // stop sampling; what was enqueued still goes
      await page.waitForFunction(
        () => {
          const s = window.demo.live.stream.status();
          return (
            s.batchesPending === 0 &&
            s.pointsBuffered === 0 &&
            s.pointsSent === window.demo.live.feed.enqueued
          );
        },
        null,
        { timeout: MINUTES },
      );
      await page.evaluate(() => window.demo.live.poll(true));
      const counts = await page.evaluate(() => ({
        enqueued: window.demo.live.feed.enqueued,
        sent: window.demo.live.stream.status().pointsSent,
        dropped: window.demo.live.stream.status().pointsDropped,
        received: window.demo.live.received,
      }));
      expect(counts.enqueued).toBeGreaterThan(3 * 1_000); // > 3 s of 10 channels × 100 Hz
      expect(counts).toEqual({
        enqueued: counts.enqueued,
        sent: counts.enqueued,
        dropped: 0,
        received: counts.enqueued,
      });
      await page.waitForFunction(
        (n) => document.querySelector("#live-check")?.textContent === `sent ${n} == received ${n}`,
        counts.enqueued.toLocaleString("en-US"),
        { timeout: 5_000 },
      );
      // the server's table, read here: every (channel, timestamp) exactly once
      const Received = defineNamespace({
        name: "received",
        tables: { points: table({ schema: avroStreamArrowSchema }) },
      });
      const received = await (
        await Received.open({ storage: nodeStorage({ root: ingestRoot }) })
      ).points.read();
      const channels = Array.from(received.getChild("channel")!, String);
      const times = Array.from(received.getChild("timestamp")!, String);
      const keys = new Set(channels.map((c, i) => `${c}@${times[i]}`));
      expect(received.numRows).toBe(counts.enqueued);
      expect(keys.size).toBe(counts.enqueued);
      expect(new Set(channels).size).toBe(10);
      await shot("7-live");
    });

    it("boots offline from the service worker with its data", async () => {
      await page.waitForSelector("#offline-status[data-ready]", { timeout: 3 * MINUTES });
      const before = await page.evaluate(async () => ({
        snapshots: (await window.demo.ns.points.history()).map((s) => s.id),
        rollups: (await window.demo.ns.rollups.read()).numRows,
      }));
      await context!.setOffline(true);
      await page.reload();
      await page.waitForFunction(() => (window.demo?.board.last?.points ?? 0) > 0, null, {
        timeout: 2 * MINUTES,
      });
      const after = await page.evaluate(async () => ({
        online: navigator.onLine,
        controlled: navigator.serviceWorker.controller !== null,
        snapshots: (await window.demo.ns.points.history()).map((s) => s.id),
        rollups: (await window.demo.ns.rollups.read()).numRows,
        imported: (
          await window.demo.ns.points.scan({ filter: (w) => w.eq("channel", "bench.pressure") }).toArrow()
        ).numRows,
      }));
      expect(after).toMatchObject({
        online: false,
        controlled: true,
        rollups: before.rollups,
        imported: 1000,
      });
      expect(after.snapshots.slice(0, before.snapshots.length)).toEqual(before.snapshots);
      expect(await page.textContent("#net")).toBe("offline");
      await shot("8-offline");
      // DuckDB's wasm comes from the cache too
      await tab("sql");
      await page.waitForFunction(() => window.demo.sql.last !== undefined, null, { timeout: 3 * MINUTES });
      await context!.setOffline(false);
      expect(problems).toEqual([]);
    });
  },
  20 * MINUTES,
);
