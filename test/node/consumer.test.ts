// The packed package in a fresh app, as a user gets it: `npm run build && npm pack`, the tarball installed
// with zod, apache-arrow, vite and @duckdb/duckdb-wasm into a copy of test/consumer/app (outside the repo),
// no bundler configuration. In Chromium under `vite` dev and under `vite build` + `vite preview`: tables in
// browser storage, SQL, Avro write and ingest, a big file through the library's own OPFS writer Worker
// (a Blob URL), a workflow through the app's own worker entry (run in a DedicatedWorkerGlobalScope), data
// kept across a reload, a minified unnamed step refused at run time
// without blanking the page. In Node, under tsx and compiled: a workflow in worker threads via the app's
// own worker entry; without the optional bullmq, its executor, worker API and command say what to install.
// Never against ../src.
import { type ChildProcess, execFile, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type Browser, chromium } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withBuildLock } from "../../scripts/build-lock.mjs";
import { CHROMIUM_ARGS, chromiumPath } from "../../scripts/chromium-path.mjs";

const run = promisify(execFile);
const REPO = new URL("../..", import.meta.url).pathname;
const FIXTURE = new URL("../consumer/app", import.meta.url).pathname;
const MINUTES = 60_000;

let dir = "";
let app = "";
let browser: Browser | undefined;
const servers: ChildProcess[] = [];

/** Runs a command in `cwd`, failing with its output. */
async function sh(cwd: string, command: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run(command, args, { cwd, maxBuffer: 64 * 1024 * 1024, env: process.env });
    return stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(" ")} failed in ${cwd}:\n${e.stderr || e.stdout || e.message}`);
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/** Starts `vite <args>` in the app on a free port (its own process group, killed in afterAll). */
async function vite(args: string[]): Promise<string> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      join(app, "node_modules/vite/bin/vite.js"),
      ...args,
      "--port",
      String(port),
      "--strictPort",
      "--host",
      "127.0.0.1",
    ],
    { cwd: app, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  servers.push(child);
  let log = "";
  const origin = `http://127.0.0.1:${port}`;
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      // biome-ignore lint/suspicious/noControlCharactersInRegex: vite colours its banner
      if (log.replace(/\x1b\[[0-9;]*m/g, "").includes(origin)) resolve();
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("exit", (code) => reject(new Error(`vite ${args.join(" ")} exited with ${code}:\n${log}`)));
  });
  return origin;
}

function stop(child: ChildProcess): void {
  if (child.exitCode !== null || child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGTERM"); // the whole group: vite and anything it started
  } catch {
    // already gone
  }
}

/** Loads the page (then reloads it) in one browser context and gives the JSON each load reported. */
async function loadTwice(origin: string): Promise<unknown[]> {
  const context = await browser!.newContext();
  const failed: string[] = [];
  try {
    const page = await context.newPage();
    page.on("response", (r) => {
      if (r.status() >= 400 && !r.url().endsWith("/favicon.ico")) failed.push(`${r.status()} ${r.url()}`);
    });
    page.on("pageerror", (e) => failed.push(`pageerror: ${e.message}`));
    const reports: unknown[] = [];
    for (const load of [() => page.goto(`${origin}/?storage=consumer`), () => page.reload()]) {
      await load();
      await page.waitForFunction(() => document.getElementById("out")?.textContent !== "loading", null, {
        timeout: 2 * MINUTES,
      });
      const text = (await page.textContent("#out")) ?? "";
      expect(text.slice(0, 3000)).toMatch(/^OK /);
      reports.push(JSON.parse(text.slice(3)));
    }
    expect(failed).toEqual([]);
    return reports;
  } finally {
    await context.close();
  }
}

/** What the page reports on its first load and after a reload: the reload sees the first load's rows. */
function expectAppWorked([first, second]: unknown[], legacy: unknown): void {
  const workflow = {
    scope: "DedicatedWorkerGlobalScope",
    inWorker: true,
    doubled: 42,
    appended: 1,
  };
  // The library's OPFS writer Worker (a Blob URL) started on the first load and wrote the big file.
  const bigFile = { bytes: 200_000, same: true, blobWorkers: 1, workerErrors: 0 };
  expect(first).toEqual({
    before: 0,
    after: 2,
    sql: { n: 2, total: 241.5, sqlIsAppArrow: true },
    avro: { records: 1, ingested: 3, snapshot: "string" },
    workflow,
    workflowRows: 1,
    legacy,
    bigFile,
  });
  expect(second).toMatchObject({
    before: 2,
    after: 4,
    sql: { n: 4, total: 483, sqlIsAppArrow: true },
    avro: { records: 1, ingested: 6 },
    workflow,
    workflowRows: 2,
    bigFile,
  });
}

describe("the packed package in a fresh app", () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "ava-consumer-"));
    // under the build lock: the demo test builds and packs this checkout too, maybe at the same time
    const packed = await withBuildLock(REPO, async () => {
      await sh(REPO, "npm", ["run", "build", "--silent"]);
      return JSON.parse(
        await sh(REPO, "npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir]),
      ) as { filename: string }[];
    });
    app = join(dir, "app");
    await cp(FIXTURE, app, { recursive: true, filter: (src) => !/node_modules|[/\\]dist$/.test(src) });
    const manifest = join(app, "package.json");
    const text = await readFile(manifest, "utf8");
    await writeFile(manifest, text.replace("file:TARBALL", `file:${join(dir, packed[0]!.filename)}`));
    await sh(app, "npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"]);
    browser = await chromium.launch({
      executablePath: chromiumPath() ?? "/usr/bin/chromium",
      args: CHROMIUM_ARGS,
    });
  }, 6 * MINUTES);

  afterAll(async () => {
    for (const s of servers) stop(s);
    await browser?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it(
    "runs under vite dev with no config",
    async () => {
      const origin = await vite([]);
      // dev keeps function names: the older style of step still runs there
      expectAppWorked(await loadTwice(origin), { ran: 1 });
    },
    4 * MINUTES,
  );

  it(
    "runs from vite build + vite preview with no config",
    async () => {
      await sh(app, process.execPath, [
        join(app, "node_modules/vite/bin/vite.js"),
        "build",
        "--logLevel",
        "error",
      ]);
      const origin = await vite(["preview"]);
      expectAppWorked(await loadTwice(origin), {
        code: "WORKFLOW_INVALID",
        message: expect.stringMatching(/workflow legacy: step call 1 has no name .*ava\.step\("generate"/),
      });
    },
    4 * MINUTES,
  );

  it(
    "without bullmq installed: bullmqExecutor, serveBullmq and the worker command say to install it",
    async () => {
      expect(existsSync(join(app, "node_modules", "bullmq"))).toBe(false); // an optional peer: not installed
      const install =
        /need the bullmq package: npm install bullmq \(an optional peer dependency of avalanche-web\)/;
      const { run, serve } = JSON.parse(
        await sh(app, process.execPath, [join(app, "node_modules/tsx/dist/cli.mjs"), "node/no-bullmq.ts"]),
      );
      expect(run).toMatchObject({ name: "AvaError", code: "RUN_FAILED", node: { code: "UNAVAILABLE" } });
      expect(run.node.message).toMatch(install);
      expect(serve).toMatchObject({
        name: "AvaError",
        code: "UNAVAILABLE",
        message: expect.stringMatching(install),
      });

      // the command, as `npx avalanche-web worker` runs it (under tsx: the workflow module is TypeScript)
      const cli = spawnSync(
        process.execPath,
        [
          "--import",
          "tsx",
          join(app, "node_modules/.bin/avalanche-web"),
          "worker",
          "--queue",
          "q",
          "--module",
          "node/flow.ts",
        ],
        { cwd: app, encoding: "utf8", env: { ...process.env, AVALANCHE_REDIS: "redis://127.0.0.1:1" } },
      );
      expect(cli.status, cli.stderr).toBe(1);
      expect(cli.stderr).toMatch(
        /^avalanche-web: bullmqExecutor and the bullmq worker need the bullmq package/,
      );
      expect(cli.stderr).toMatch(install);
    },
    2 * MINUTES,
  );

  it(
    "runs a workflow in worker threads from the app's own entry, under tsx and compiled",
    async () => {
      const inThread = { isMainThread: false, doubled: 42, threadId: expect.any(Number) };
      const underTsx = JSON.parse(
        await sh(app, process.execPath, [join(app, "node_modules/tsx/dist/cli.mjs"), "node/main.ts"]),
      );
      expect(underTsx).toMatchObject({ viaUrl: inThread, rows: 1 });
      // a function starting a .js entry that only exists once compiled: refused with the way out
      expect(underTsx.viaFunction).toMatchObject({ code: "RUN_FAILED" });
      expect(underTsx.viaFunction.message).toMatch(
        /pass its URL, \{ worker: new URL\("\.\/flow\.worker\.js"/,
      );

      await sh(app, process.execPath, [join(app, "node_modules/typescript/bin/tsc"), "-p", "node"]);
      const compiled = JSON.parse(await sh(app, process.execPath, ["node/dist/main.js"]));
      expect(compiled).toMatchObject({ viaUrl: inThread, viaFunction: inThread, rows: 2 });
    },
    4 * MINUTES,
  );
});
