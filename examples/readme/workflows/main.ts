// The Workflows section's main module: runs the flow in worker threads on Node storage, then checks what
// the README says of it.
// #region readme
import * as ava from "../../../src/node.js";
import { flow, Notes } from "./flow.js";

const storage = ava.nodeStorage({ root: ".avalanche" });
const ns = await Notes.open({ storage });
await ns.push();
const executor = ava.workerExecutor({
  // in a browser: worker: () => new Worker(new URL("./flow.worker.ts", import.meta.url), { type: "module" })
  worker: new URL("./flow.worker.ts", import.meta.url),
  size: 2, // default: the number of cores
});
const run = flow.run({ storage, executor });
run.on((e) => e.type === "node-finished" && console.log(e.slug, e.status, `${e.done}/${e.total}`));
const { value, nodes } = await run.result(); // rejects with RUN_FAILED / RUN_CANCELLED carrying the result
await executor.close();
// #endregion readme

const [row] = await ns.totals.scan().toObjects();
const checks: [string, boolean][] = [
  ["the value is inc(1) + inc(inc(1))", value === 5],
  ["four nodes succeeded", Object.values(nodes).filter((n) => n.status === "success").length === 4],
  ["slugs repeat as inc_2", "inc_2" in nodes],
  ["save ran in a worker thread", row?.by === "worker-thread"],
  [
    "its row names every node its value came from",
    JSON.stringify(row?._ava_lineage_vector) ===
      JSON.stringify({ add: run.runId, inc: run.runId, inc_2: run.runId, save: run.runId }),
  ],
  ["the run is recorded", (await ava.getRun(storage, run.runId)).status === "success"],
];
for (const [what, ok] of checks) if (!ok) throw new Error(`README Workflows example: ${what} failed`);
console.log("workflows: ok");
