// Steps on BullMQ worker processes (`avalanche-web worker`) against worker threads, on a throwaway local
// redis-server: a CPU-bound DAG of 64 independent ~50 ms nodes on 1, 2 and 4 worker processes (this machine
// has 2 cores: the curve should flatten at 2), and the per-node overhead of no-op nodes, along a chain and
// across a fan-out, against worker threads (goal: under 5 ms a node on loopback). `npm run bench -- bullmq`; never part of `npm test`.
import { join } from "node:path";
import * as ava from "../src/node.js";
import { startWorkers } from "../test/node/fixtures/bullmq-workers.js";
import { startRedis } from "../test/node/fixtures/redis-server.js";
import { CHAIN_NODES, chain100, fanOut, SPIN_NODES, spinning, work } from "./bullmq-flows.js";
import { median, printTable, ratio, repeat } from "./lib.js";
import { NODES } from "./workflow-flows.js";

const RUNS = 3;
const SPIN_MS = 50;
const MODULE = join(import.meta.dirname, "bullmq-flows.ts");

/** Per-node cost: latency along a 100-node chain, throughput across a 1,000-node fan-out. */
async function overhead(executor: ava.Executor, where: string, note: string) {
  await chain100.run({ executor }).result();
  await fanOut.run({ executor }).result();
  const chained = await repeat(RUNS, () => chain100.run({ executor }).result());
  const fanned = await repeat(RUNS, () => fanOut.run({ executor }).result());
  return [
    {
      case: `${CHAIN_NODES}-node chain of no-ops, ${where}`,
      median_ms: median(chained),
      rate: `${(median(chained) / CHAIN_NODES).toFixed(2)} ms/node`,
      note: `${note} (one node at a time: the round trip)`,
    },
    {
      case: `${NODES}-node fan-out of no-ops, ${where}`,
      median_ms: median(fanned),
      rate: `${(median(fanned) / NODES).toFixed(2)} ms/node`,
      note: `${note} (nodes queued together)`,
    },
  ];
}

/** Iterations of `work` that take about `ms` here (the best of a few tries: the machine is shared). */
function calibrate(ms: number): number {
  const n = 2_000_000;
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    work(n, i);
    best = Math.min(best, performance.now() - t0);
  }
  return Math.round((n * ms) / best);
}

export async function benchBullmq(): Promise<void> {
  const iterations = calibrate(SPIN_MS);
  const redis = await startRedis();
  const rows = [];
  const ideal = SPIN_NODES * SPIN_MS;
  try {
    let one = 0;
    for (const processes of [1, 2, 4]) {
      const queue = `bench-${processes}`;
      const workers = await startWorkers(processes, { redis: redis.url, queue, module: MODULE });
      const executor = ava.bullmqExecutor({ connection: redis.url, queue });
      try {
        await spinning.run({ executor, input: { iterations: 1000 } }).result(); // every worker warm
        const times = await repeat(RUNS, () => spinning.run({ executor, input: { iterations } }).result());
        if (processes === 1) one = median(times);
        rows.push({
          case: `64 × ${SPIN_MS} ms CPU nodes, ${processes} worker process${processes > 1 ? "es" : ""}`,
          median_ms: median(times),
          rate: `${(one / median(times)).toFixed(2)}× speed-up`,
          ratio: ratio(median(times), ideal),
          note: `ratio = × ${ideal} ms of work done serially`,
        });
        if (processes === 1)
          rows.push(...(await overhead(executor, "1 worker process", "goal < 5 ms a node on loopback")));
      } finally {
        await executor.close();
        await workers.stop();
      }
    }
    const threads = ava.workerExecutor({
      worker: new URL("./bullmq-thread.worker.ts", import.meta.url),
      size: 2,
    });
    try {
      await spinning.run({ executor: threads, input: { iterations: 1000 } }).result();
      const spun = await repeat(RUNS, () =>
        spinning.run({ executor: threads, input: { iterations } }).result(),
      );
      rows.push(
        {
          case: `64 × ${SPIN_MS} ms CPU nodes, 2 worker threads`,
          median_ms: median(spun),
          rate: `${(one / median(spun)).toFixed(2)}× speed-up`,
          ratio: ratio(median(spun), ideal),
          note: "the same DAG without Redis",
        },
        ...(await overhead(threads, "2 worker threads", "the floor without Redis")),
      );
    } finally {
      await threads.close();
    }
  } finally {
    await redis.stop();
  }
  printTable(`Workflow steps on BullMQ worker processes (medians of ${RUNS})`, rows);
}
