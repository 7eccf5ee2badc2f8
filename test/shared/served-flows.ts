// Every workflow of workflow-flows.ts, for the worker entries of the executor suites to serve.
import * as ava from "../../src/index.js";
import * as flows from "./workflow-flows.js";

export const servedFlows = Object.values(flows).filter(
  (v): v is ava.Workflow => (v as { kind?: unknown })?.kind === "avalanche.workflow",
);

/** A workflow named like `skipping` but built differently: a worker entry out of step with the page. */
export const otherSkipping = ava.workflow({ name: "skipping" }, () => flows.inc(1));
