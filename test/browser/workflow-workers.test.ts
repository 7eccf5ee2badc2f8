// The workflow engine with Web Workers in Chromium, started on the test's own worker entries.
import { it } from "vitest";
import { browserStorage, serveWorkflows, workerExecutor } from "../../src/index.js";
import { ulid } from "../../src/util/ids.js";
import { expectAvaError } from "../shared/fixtures.js";
import { describeExecutor } from "../shared/workflow-executors.js";
import { math } from "../shared/workflow-flows.js";

describeExecutor("Web Workers", {
  executor: (size) =>
    workerExecutor({
      worker: () => new Worker(new URL("./workers/flows.worker.ts", import.meta.url), { type: "module" }),
      size,
    }),
  narrowExecutor: () =>
    workerExecutor({
      worker: () => new Worker(new URL("./workers/math-only.worker.ts", import.meta.url), { type: "module" }),
      size: 1,
    }),
  create: (options) => workerExecutor(options as Parameters<typeof workerExecutor>[0]),
  storage: () => browserStorage({ name: `wf-${ulid()}`, persist: false }),
});

it("refuses serveWorkflows on a page, where it would serve nothing", async () => {
  await expectAvaError(() => serveWorkflows(math), "UNAVAILABLE", /inside a Web Worker entry/);
});
