// Runs recorded in a Node catalog survive checkpoints and reopening: 60 runs (120 commits) cross the
// checkpoint at version 100, and a fresh storage instance lists and reads them all.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import * as ava from "../../src/node.js";
import { math } from "../shared/workflow-flows.js";

it("keeps recorded runs across checkpoints and reopening", async () => {
  const dir = await mkdtemp(join(tmpdir(), "ava-runs-"));
  try {
    const storage = ava.nodeStorage({ root: dir, fsync: false });
    for (let i = 0; i < 60; i++) await math.run({ storage, runId: `r${i}`, metadata: { i } }).result();
    const reopened = ava.nodeStorage({ root: dir, fsync: false });
    const runs = await ava.listRuns(reopened);
    expect(runs.map((r) => r.runId)).toEqual(Array.from({ length: 60 }, (_, i) => `r${i}`));
    expect(runs.every((r) => r.status === "success" && r.nodes.add!.status === "success")).toBe(true);
    expect(await ava.getRun(reopened, "r42")).toMatchObject({ workflowName: "math", metadata: { i: 42 } });
    expect((await reopened.catalog.current()).version).toBe(120);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
