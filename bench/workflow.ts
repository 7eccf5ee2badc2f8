// Workflow scheduling overhead in Node and then in Chromium: a 1,000-node chain and a 1,000-node fan-out of no-op steps,
// inline and in a 4-thread pool, beside the same function called directly in a loop; and the cost of
// handing a 1M-row Arrow table from one worker node to the next against a 1k-row one.
import * as ava from "../src/node.js";
import { runBenchPage } from "./browser-page.js";
import { median, printTable, ratio, repeat } from "./lib.js";
import { chain, fanOut, handoff1k, handoff1m, handoverTimes, NODES, noopFn } from "./workflow-flows.js";

const RUNS = 5;

export async function benchWorkflow(): Promise<void> {
  const pool = ava.workerExecutor({
    worker: new URL("./workflow-thread.worker.ts", import.meta.url),
    size: 4,
  });
  try {
    await chain.run({ executor: pool }).result(); // start the threads and warm both paths
    await chain.run().result();
    const direct = await repeat(RUNS, async () => {
      let x = 0;
      for (let i = 0; i < NODES; i++) x = await noopFn(x);
    });
    const rows = [];
    for (const [label, flow] of [
      ["chain", chain],
      ["fan-out", fanOut],
    ] as const) {
      const inline = await repeat(RUNS, () => flow.run().result());
      const threads = await repeat(RUNS, () => flow.run({ executor: pool }).result());
      rows.push(
        {
          case: `1,000-node ${label}, inline`,
          median_ms: median(inline),
          rate: `${(median(inline) / NODES).toFixed(3)} ms/node`,
          ratio: ratio(median(inline), median(direct)),
          note: "target < 0.2 ms a node; ratio = × direct calls",
        },
        {
          case: `1,000-node ${label}, 4 worker threads`,
          median_ms: median(threads),
          rate: `${(median(threads) / NODES).toFixed(3)} ms/node`,
          ratio: ratio(median(threads), median(direct)),
          note: "target < 1 ms a node",
        },
      );
    }
    rows.push({
      case: "the same function called 1,000 times in a loop",
      median_ms: median(direct),
      ratio: "1.00×",
    });
    await handoff1m.run({ executor: pool }).result();
    const small = await handoverTimes(handoff1k, pool, RUNS);
    const large = await handoverTimes(handoff1m, pool, RUNS);
    rows.push(
      { case: "hand a 1k-row table to a node in another thread", median_ms: median(small), ratio: "1.00×" },
      {
        case: "the same with a 1M-row table (16 MB)",
        median_ms: median(large),
        ratio: ratio(median(large), median(small)),
        note: "target about 1× (no copy); ratio = × the 1k-row hand-over",
      },
    );
    printTable(`Workflow scheduling in Node (medians of ${RUNS})`, rows);
  } finally {
    await pool.close();
  }

  const t = await runBenchPage("workflow.html");
  const m = (k: string) => median(t[k]!);
  const perNode = (k: string) => `${(m(k) / NODES).toFixed(3)} ms/node`;
  printTable(`Workflow scheduling in headless Chromium (medians of ${RUNS})`, [
    {
      case: "1,000-node chain, inline",
      median_ms: m("chainInline"),
      rate: perNode("chainInline"),
      ratio: ratio(m("chainInline"), m("direct")),
      note: "target < 0.2 ms a node; ratio = × direct calls",
    },
    {
      case: "1,000-node chain, 4 Web Workers",
      median_ms: m("chainWorkers"),
      rate: perNode("chainWorkers"),
      ratio: ratio(m("chainWorkers"), m("direct")),
      note: "target < 1 ms a node",
    },
    {
      case: "1,000-node fan-out, inline",
      median_ms: m("fanInline"),
      rate: perNode("fanInline"),
      ratio: ratio(m("fanInline"), m("direct")),
    },
    {
      case: "1,000-node fan-out, 4 Web Workers",
      median_ms: m("fanWorkers"),
      rate: perNode("fanWorkers"),
      ratio: ratio(m("fanWorkers"), m("direct")),
    },
    { case: "the same function called 1,000 times in a loop", median_ms: m("direct"), ratio: "1.00×" },
    { case: "hand a 1k-row table to a node in another Worker", median_ms: m("handoff1k"), ratio: "1.00×" },
    {
      case: "the same with a 1M-row table (16 MB)",
      median_ms: m("handoff1m"),
      ratio: ratio(m("handoff1m"), m("handoff1k")),
      note: "target about 1× (no copy)",
    },
  ]);
}
