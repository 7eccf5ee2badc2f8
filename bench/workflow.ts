// Workflow scheduling overhead in Node: a 1,000-node chain and a 1,000-node fan-out of no-op steps,
// inline and in a 4-thread pool, beside the same function called directly in a loop; and the cost of
// handing a 1M-row Arrow table from one worker node to the next against a 1k-row one.
import * as ava from "../src/node.js";
import { median, printTable, ratio, repeat } from "./lib.js";
import { chain, fanOut, handoff1k, handoff1m, NODES, noopFn } from "./workflow-flows.js";

const RUNS = 5;

export async function benchWorkflow(): Promise<void> {
  const pool = ava.workerExecutor({ module: new URL("./workflow-flows.ts", import.meta.url), size: 4 });
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
    const small = await repeat(RUNS, () => handoff1k.run({ executor: pool }).result());
    const large = await repeat(RUNS, () => handoff1m.run({ executor: pool }).result());
    rows.push(
      {
        case: "make a 1k-row table in one thread, count it in another",
        median_ms: median(small),
        ratio: "1.00×",
      },
      {
        case: "the same with 1M rows (16 MB)",
        median_ms: median(large),
        ratio: ratio(median(large), median(small)),
        note: "includes making the table; ratio = × the 1k-row run",
      },
    );
    printTable(`Workflow scheduling in Node (medians of ${RUNS})`, rows);
  } finally {
    await pool.close();
  }
}
