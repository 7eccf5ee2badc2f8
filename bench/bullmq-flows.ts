// The workflows of the BullMQ bench, in a module that `avalanche-web worker --module` and a worker-thread
// entry both serve: 64 independent CPU-bound nodes, and the scheduling bench's 1,000-node chain of no-ops.
import { z } from "zod";
import * as ava from "../src/index.js";

export { chain } from "./workflow-flows.js";

/** Spins `ms` of CPU (no sleeping: the curve must show cores, not waiting). */
const spin = ava.step(async function spin({ ms }: { ms: number }, i: number) {
  const end = performance.now() + ms;
  let x = i;
  while (performance.now() < end) x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
  return x;
});

export const SPIN_NODES = 64;

export const spinning = ava.workflow(
  { name: "bench-spinning", input: z.object({ ms: z.number() }) },
  (input) => Array.from({ length: SPIN_NODES }, (_, i) => spin(input, i)),
);
