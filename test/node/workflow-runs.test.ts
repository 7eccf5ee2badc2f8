// Runs recorded in a Node catalog survive checkpoints and reopening: 60 runs (120 commits) cross the
// checkpoint at version 100, and a fresh storage instance lists and reads them all.
import { spawn } from "node:child_process";
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

it("a run whose process was killed is listed as abandoned once its lease runs out; a live one never is", async () => {
  const dir = await mkdtemp(join(tmpdir(), "ava-abandoned-"));
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(import.meta.dirname, "fixtures", "run-child.ts"), dir, "killed", "800"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout!.once("data", () => resolve());
      child.once("exit", (code) => reject(new Error(`child exited (${code}) before its run started`)));
    });
    const storage = ava.nodeStorage({ root: dir, fsync: false });
    expect((await ava.getRun(storage, "killed")).status).toBe("running");
    // A live run in this process, with the same short lease, outlives several leases.
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const slow = ava.step(async () => gate, { slug: "slow" });
    const live = ava.workflow({ name: "live" }, () => slow()).run({ storage, runId: "live", leaseMs: 800 });
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    await new Promise((r) => setTimeout(r, 2500));
    const runs = Object.fromEntries((await ava.listRuns(storage)).map((r) => [r.runId, r.status]));
    expect(runs).toEqual({ killed: "abandoned", live: "running" });
    expect((await ava.getRun(storage, "killed")).status).toBe("abandoned");
    release();
    await live.result();
    expect((await ava.getRun(storage, "live")).status).toBe("success");
  } finally {
    child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  }
});
