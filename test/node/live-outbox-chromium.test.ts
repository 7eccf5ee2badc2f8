// The live stream's outbox in real Chromium, driven by Playwright from Node: only Playwright can take the
// browser offline (`context.setOffline`, which also fires the page's "offline"/"online" events and sets
// navigator.onLine) and reload the page for real — vitest's browser mode runs its tests inside the page,
// which can do neither. A page streams into browser storage (OPFS + IndexedDB) towards the ingest endpoint
// on a fault server; the network goes away mid-stream, then the page is reloaded with batches still unsent
// (the server down meanwhile); the reloaded page's stream resumes them. Every point lands once.
import { fileURLToPath } from "node:url";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium } from "playwright";
import { createServer, type ViteDevServer } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, chromiumPath } from "../../scripts/chromium-path.mjs";
import { type FaultServer, faultServer } from "./fixtures/fault-server.js";
import { telemetryTable } from "./fixtures/telemetry-table.js";

let vite: ViteDevServer;
let origin = "";
let browser: Browser;
let fake: FaultServer | undefined;

beforeAll(async () => {
  vite = await createServer({
    configFile: false,
    root: fileURLToPath(new URL("./fixtures/live-page/", import.meta.url)),
    logLevel: "error",
    server: { port: 0, host: "127.0.0.1", fs: { allow: [fileURLToPath(new URL("../..", import.meta.url))] } },
    optimizeDeps: { include: ["apache-arrow", "idb"] },
  });
  await vite.listen();
  origin = `http://127.0.0.1:${(vite.httpServer!.address() as { port: number }).port}`;
  browser = await chromium.launch({
    executablePath: chromiumPath() ?? "/usr/bin/chromium",
    args: CHROMIUM_ARGS,
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await vite?.close();
  await fake?.close();
});

async function until<T>(
  what: string,
  read: () => Promise<T>,
  ok: (v: T) => boolean,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("live stream outbox in Chromium", () => {
  it("offline mid-stream, then a reload with unsent batches: after going online every point lands once", async () => {
    const table = await telemetryTable(await mkdtemp(join(tmpdir(), "ava-outbox-chromium-")));
    fake = await faultServer(["503", "ok", "reset"], table.accept);
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(origin, { timeout: 120_000 });
    await page.waitForFunction(() => window.live !== undefined, undefined, { timeout: 120_000 });
    const status = () => page.evaluate(() => window.live.status());

    await page.evaluate((url) => window.live.open(url), fake.url);
    await page.evaluate(() => window.live.produce(0, 5)); // 50,000 points, online
    await until("5 batches sent", status, (s) => s.batchesSent === 5);

    await context.setOffline(true); // mid-stream: the next batches cannot leave
    await page.evaluate(() => window.live.produce(5, 12));
    const offline = await until(
      "7 batches stored offline",
      status,
      (s) => s.batchesInOutbox === 7 && s.pointsBuffered === 0,
    );
    expect(offline).toMatchObject({
      navigatorOnLine: false,
      online: false,
      batchesSent: 5,
      pointsInOutbox: 70_000,
    });
    expect(offline.events.offline).toBeGreaterThanOrEqual(1);

    // Back online, but the server is down: the batches are still unsent when the page reloads.
    await fake.down(2500);
    await context.setOffline(false);
    await page.evaluate(() => window.live.produce(12, 15)); // 3 more batches, stored, unsent
    await until("10 batches unsent", status, (s) => s.batchesInOutbox === 10);
    await page.reload({ timeout: 120_000 });
    await page.waitForFunction(() => window.live !== undefined, undefined, { timeout: 120_000 });

    // The reloaded page opens the same outbox and stream: it resends what was left once the server is back.
    await page.evaluate((url) => window.live.open(url), fake.url);
    await page.evaluate(() => window.live.produce(15, 20)); // and goes on streaming
    await page.evaluate(() => window.live.close());
    const after = await status();
    expect(after).toMatchObject({
      batchesInOutbox: 0,
      batchesSent: 15,
      pointsSent: 150_000,
      batchesDropped: 0,
    });
    expect(errors).toEqual([]);
    // 20 batches x 10,000 points: 50 channels x 4,000 timestamps, each once in the table
    expect(await table.landed(50, 4000)).toEqual({ rows: 200_000, distinct: 200_000, inRange: 200_000 });
    await context.close();
  }, 180_000);
});
