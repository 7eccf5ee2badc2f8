// The Web Worker entry of the executor suite: serves every workflow of test/shared/workflow-flows.ts.
import { serveWorkflows } from "../../../src/index.js";
import { servedFlows } from "../../shared/served-flows.js";

serveWorkflows(...servedFlows);
