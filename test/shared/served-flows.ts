// Every workflow of workflow-flows.ts, for the worker entries of the executor suites to serve.
import type * as ava from "../../src/index.js";
import * as flows from "./workflow-flows.js";

export const servedFlows = Object.values(flows).filter(
  (v): v is ava.Workflow => (v as { kind?: unknown })?.kind === "avalanche.workflow",
);
