// The workflow engine with worker threads, started on the test's own worker entries: TypeScript ones, which
// the executor starts through tsx when given their URL, and a function starting a compiled-style .mjs one.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { afterAll, expect, it } from "vitest";
import { nodeStorage, serveWorkflows, workerExecutor } from "../../src/node.js";
import { expectAvaError } from "../shared/fixtures.js";
import { describeExecutor } from "../shared/workflow-executors.js";
import { math } from "../shared/workflow-flows.js";

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describeExecutor("worker threads", {
  // `.js` as compiled code names it: the executor finds the `.ts` beside it, as under tsx
  executor: (size) =>
    workerExecutor({ worker: new URL("./fixtures/flows.worker.js", import.meta.url), size }),
  narrowExecutor: () =>
    workerExecutor({ worker: new URL("./fixtures/math-only.worker.ts", import.meta.url), size: 1 }),
  create: (options) => workerExecutor(options as Parameters<typeof workerExecutor>[0]),
  async storage() {
    const dir = await mkdtemp(join(tmpdir(), "ava-wf-"));
    dirs.push(dir);
    return nodeStorage({ root: dir, fsync: false });
  },
});

it("starts threads with the app's own function, and says what to do when the entry cannot load", async () => {
  const dir = await mkdtemp(join(tmpdir(), "ava-wf-"));
  dirs.push(dir);
  const entry = join(dir, "broken.worker.mjs");
  await writeFile(entry, `throw new Error("this entry is broken");\n`);
  const pool = workerExecutor({ worker: () => new Worker(pathToFileURL(entry)), size: 1 });
  try {
    const err = await expectAvaError(
      math.run({ executor: pool }).result(),
      "RUN_FAILED",
      /this entry is broken/,
    );
    expect(err.message).toMatch(/inc/);
  } finally {
    await pool.close();
  }
  await expectAvaError(
    () => workerExecutor({ worker: join(dir, "missing.worker.js") }),
    "NOT_FOUND",
    /no worker entry at .*missing\.worker\.js/,
  );
});

it("refuses serveWorkflows outside a worker thread", async () => {
  await expectAvaError(() => serveWorkflows(math), "UNAVAILABLE", /inside a worker thread's entry/);
});
