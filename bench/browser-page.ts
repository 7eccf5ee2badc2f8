// Runs one bench page in headless Chromium (Debian's, through Playwright) under a Vite dev server rooted at
// bench/browser/, and returns the timings the page leaves on `window.__bench`.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright";
import { createServer } from "vite";
import { CHROMIUM_ARGS, chromiumPath } from "../scripts/chromium-path.mjs";

export type Timings = Record<string, number[]>;

/**
 * `profile: "disk"` runs the page in a profile on disk, as a user's browser is: Playwright's default
 * context is off the record, where Chromium keeps OPFS in memory and every file write is a message to the
 * browser process (a sync access handle then gains nothing over createWritable).
 */
export async function runBenchPage(
  page: string,
  { profile = "incognito" }: { profile?: "incognito" | "disk" } = {},
): Promise<Timings> {
  const root = fileURLToPath(new URL("./browser/", import.meta.url));
  const server = await createServer({
    configFile: false,
    root,
    logLevel: "error",
    server: { port: 0, host: "127.0.0.1", fs: { allow: [fileURLToPath(new URL("..", import.meta.url))] } },
    // The avsc peer's browser entry requires Node modules: browserify's npm shims stand in (avsc-peer.ts).
    resolve: {
      alias: {
        buffer: "buffer/",
        util: "util/",
        events: "events/",
        stream: "stream-browserify",
        zlib: fileURLToPath(new URL("./browser/shims/no-zlib.cjs", import.meta.url)),
      },
    },
    optimizeDeps: {
      include: ["apache-arrow", "idb", "zod", "@duckdb/duckdb-wasm", "avsc/etc/browser/avsc.js", "buffer"],
      exclude: ["parquet-wasm"],
    },
  });
  await server.listen();
  const address = server.httpServer!.address() as { port: number };
  const launch = { executablePath: chromiumPath() ?? "/usr/bin/chromium", args: CHROMIUM_ARGS };
  const userDir = profile === "disk" ? await mkdtemp(join(tmpdir(), "ava-bench-profile-")) : undefined;
  const context = userDir ? await chromium.launchPersistentContext(userDir, launch) : undefined;
  const browser = context ? undefined : await chromium.launch(launch);
  try {
    const tab = context ? await context.newPage() : await browser!.newPage();
    tab.on("pageerror", (e) => console.error("page error:", e.message));
    // A crashed tab or a closed browser would otherwise leave the wait below pending forever.
    const gone = new Promise<never>((_, reject) => {
      tab.on("crash", () => reject(new Error(`the bench page ${page} crashed`)));
      const exited = () => reject(new Error(`Chromium exited during ${page}`));
      if (context) context.on("close", exited);
      else browser!.on("disconnected", exited);
    });
    // A cold Vite server on a busy machine can take a minute to serve a page's modules.
    await tab.goto(`http://127.0.0.1:${address.port}/${page}`, { timeout: 300_000 });
    await Promise.race([
      gone,
      tab.waitForFunction(() => window.__bench !== undefined, undefined, { timeout: 900_000, polling: 500 }),
    ]);
    const result = await tab.evaluate(() => window.__bench!);
    if (!result.ok) throw new Error(result.error);
    return result.timings!;
  } finally {
    await (context ?? browser)!.close();
    await server.close();
    if (userDir) await rm(userDir, { recursive: true, force: true });
  }
}
