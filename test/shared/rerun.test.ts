// Reruns: autorun and lazy modes, streams reading the source run's rows (newest run per upstream node
// along a chain of reruns), _ava_rerun_of, and value dependencies on nodes left out refused up front.
import { describe, expect, it } from "vitest";
import * as ava from "../../src/index.js";
import { expectAvaError } from "./fixtures.js";
import { byValue, Pipeline, pipeline } from "./rerun-flows.js";

async function setup() {
  const storage = ava.memoryStorage();
  const ns = await Pipeline.open({ storage });
  await ns.push();
  return { storage, ns };
}

const totals = async (ns: Awaited<ReturnType<typeof Pipeline.open>>) =>
  (await ns.summed.scan().toObjects()).map((r) => ({
    total: r.total,
    run: r._ava_run_id,
    rerunOf: r._ava_rerun_of,
  }));

describe("reruns", () => {
  it("autorun reruns the start node and everything downstream, reading left-out upstream rows from the source run", async () => {
    const { storage, ns } = await setup();
    const r1 = await pipeline.run({ storage, runId: "r1" }).result();
    expect(r1.value).toBe(12);
    const r2 = await pipeline
      .run({
        storage,
        runId: "r2",
        input: { factor: 10 },
        rerun: ava.rerun({ runId: "r1", start: ["double"] }),
      })
      .result();
    expect(r2.value).toBe(60); // double read r1's raw rows (load was not rerun), sum read r2's doubled rows
    expect(r2.nodes.load!.status).toBe("not_run");
    expect([r2.nodes.double!.status, r2.nodes.sum!.status]).toEqual(["success", "success"]);
    expect((await ns.raw.read()).numRows).toBe(3); // load did not run again
    const doubled = await ns.doubled.scan().toObjects();
    expect(doubled.filter((r) => r._ava_run_id === "r2").map((r) => [r.x, r._ava_rerun_of])).toEqual([
      [10, "r1"],
      [20, "r1"],
      [30, "r1"],
    ]);
    expect(await totals(ns)).toEqual([
      { total: 12, run: "r1", rerunOf: null },
      { total: 60, run: "r2", rerunOf: "r1" },
    ]);
    expect((await ava.getRun(storage, "r2")).rerunOf).toBe("r1");
  });

  it("lazy reruns only the start nodes; a rerun of a rerun reads each upstream node's newest rows", async () => {
    const { storage, ns } = await setup();
    await pipeline.run({ storage, runId: "r1" }).result();
    await pipeline
      .run({
        storage,
        runId: "r2",
        input: { factor: 10 },
        rerun: ava.rerun({ runId: "r1", start: ["double"], mode: "lazy" }),
      })
      .result();
    const r2 = await ava.getRun(storage, "r2");
    expect(r2.nodes.sum!.status).toBe("not_run"); // lazy: downstream left alone
    // r3 reruns sum of r2: r3 has no doubled rows, r2 does (factor 10): 60
    const r3 = await pipeline
      .run({ storage, runId: "r3", rerun: ava.rerun({ runId: "r2", start: ["sum"], mode: "lazy" }) })
      .result();
    expect(r3.value).toBe(60);
    // r4 reruns sum of r1: r1's doubled rows (factor 2): 12; r5 reruns sum of r4 and falls back to r1's too
    expect(
      (
        await pipeline
          .run({ storage, runId: "r4", rerun: ava.rerun({ runId: "r1", start: ["sum"], mode: "lazy" }) })
          .result()
      ).value,
    ).toBe(12);
    expect(
      (
        await pipeline
          .run({ storage, runId: "r5", rerun: ava.rerun({ runId: "r4", start: ["sum"], mode: "lazy" }) })
          .result()
      ).value,
    ).toBe(12);
    expect((await totals(ns)).map((t) => [t.run, t.total, t.rerunOf])).toEqual([
      ["r1", 12, null],
      ["r3", 60, "r2"],
      ["r4", 12, "r1"],
      ["r5", 12, "r4"],
    ]);
  });

  it("refuses, before anything runs, a rerun node that needs the value of a node left out", async () => {
    const { storage } = await setup();
    await byValue.run({ storage, runId: "v1" }).result();
    await expectAvaError(
      byValue
        .run({ storage, runId: "v2", rerun: ava.rerun({ runId: "v1", start: ["sum_of"], mode: "lazy" }) })
        .result(),
      "WORKFLOW_INVALID",
      /node sum_of takes the value of double, which is not rerun/,
    );
    expect((await ava.listRuns(storage)).map((r) => r.runId)).toEqual(["v1"]); // nothing was recorded
    // with double rerun too, it works
    const ok = await byValue
      .run({ storage, runId: "v3", rerun: ava.rerun({ runId: "v1", start: ["double"] }) })
      .result();
    expect(ok.value).toBe(3);
  });

  it("refuses reruns of unknown runs, of other workflows, of unknown slugs, and bad specs", async () => {
    const { storage } = await setup();
    await byValue.run({ storage, runId: "v1" }).result();
    await expectAvaError(
      pipeline.run({ storage, rerun: ava.rerun({ runId: "nope", start: ["sum"] }) }).result(),
      "NOT_FOUND",
      /nope/,
    );
    await expectAvaError(
      pipeline.run({ storage, rerun: ava.rerun({ runId: "v1", start: ["sum"] }) }).result(),
      "INVALID_ARGUMENT",
      /by-value, not pipeline/,
    );
    await pipeline.run({ storage, runId: "p1" }).result();
    await expectAvaError(
      pipeline.run({ storage, rerun: ava.rerun({ runId: "p1", start: ["ghost"] }) }).result(),
      "NOT_FOUND",
      /workflow pipeline has no node ghost/,
    );
    expect(() => ava.rerun({ runId: "v1", start: [] })).toThrow(/start/);
    expect(() => ava.rerun({ runId: "v1", start: ["sum"], mode: "eager" as never })).toThrow(/autorun/);
  });
});
