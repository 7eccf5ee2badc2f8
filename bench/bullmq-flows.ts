// The workflows of the BullMQ bench, in a module that `avalanche-web worker --module` and a worker-thread
// entry both serve: 64 independent CPU-bound nodes, a 100-node chain and the 1,000-node fan-out of no-ops.
import { z } from "zod";
import * as ava from "../src/index.js";

export { fanOut } from "./workflow-flows.js";

const noop = ava.step(async function noop(x: number) {
  return x + 1;
});

export const CHAIN_NODES = 100;

/**
 * 100 no-op nodes, each waiting for the one before: the latency of a node's round trip. Short, because every
 * node's lineage vector names all nodes before it, so a 1,000-node chain measures that growth instead.
 */
export const chain100 = ava.workflow({ name: "bench-chain-100" }, () => {
  let f = noop(0);
  for (let i = 1; i < CHAIN_NODES; i++) f = noop(f);
  return f;
});

/**
 * A fixed amount of CPU work (not "spin until 50 ms have passed", which a descheduled process also
 * satisfies: on a shared machine that would scale past its cores).
 */
export function work(iterations: number, seed: number): number {
  let x = seed;
  for (let i = 0; i < iterations; i++) x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
  return x;
}

const spin = ava.step(async function spin({ iterations }: { iterations: number }, i: number) {
  return work(iterations, i);
});

export const SPIN_NODES = 64;

export const spinning = ava.workflow(
  { name: "bench-spinning", input: z.object({ iterations: z.int() }) },
  (input) => Array.from({ length: SPIN_NODES }, (_, i) => spin(input, i)),
);
