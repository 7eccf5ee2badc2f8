// The workflow bench page: a 1,000-node chain and fan-out of no-op steps, inline and in 4 Web Workers,
// beside direct calls; and handing a 1k-row and a 1M-row Arrow table from one Worker node to the next.
import * as ava from "../../src/index.js";
import { chain, fanOut, handoff1k, handoff1m, handoverTimes, NODES, noopFn } from "../workflow-flows.js";
import { report, timed } from "./report.js";

const RUNS = 5;

await report(async () => {
  const pool = ava.workerExecutor({
    worker: () => new Worker(new URL("./workflow.worker.ts", import.meta.url), { type: "module" }),
    size: 4,
  });
  try {
    await chain.run({ executor: pool }).result(); // start the Workers and warm both paths
    await chain.run().result();
    const timings: Record<string, number[]> = {};
    timings.direct = await timed(RUNS, async () => {
      let x = 0;
      for (let i = 0; i < NODES; i++) x = await noopFn(x);
    });
    timings.chainInline = await timed(RUNS, () => chain.run().result());
    timings.chainWorkers = await timed(RUNS, () => chain.run({ executor: pool }).result());
    timings.fanInline = await timed(RUNS, () => fanOut.run().result());
    timings.fanWorkers = await timed(RUNS, () => fanOut.run({ executor: pool }).result());
    await handoff1m.run({ executor: pool }).result();
    timings.handoff1k = await handoverTimes(handoff1k, pool, RUNS);
    timings.handoff1m = await handoverTimes(handoff1m, pool, RUNS);
    return timings;
  } finally {
    await pool.close();
  }
});
