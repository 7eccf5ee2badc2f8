// The workflow engine with worker threads: test/shared/workflow-flows.ts imported in each thread.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { nodeStorage, workerExecutor } from "../../src/node.js";
import { describeExecutor } from "../shared/workflow-executors.js";

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describeExecutor("worker threads", {
  executor: (size) =>
    workerExecutor({ module: new URL("../shared/workflow-flows.ts", import.meta.url), size }),
  async storage() {
    const dir = await mkdtemp(join(tmpdir(), "ava-wf-"));
    dirs.push(dir);
    return nodeStorage({ root: dir, fsync: false });
  },
});
