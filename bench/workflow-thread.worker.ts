// The worker-thread entry of the workflow bench: serves the bench's workflows.
import { serveWorkflows } from "../src/node.js";
import { chain, fanOut, handoff1k, handoff1m } from "./workflow-flows.js";

serveWorkflows(chain, fanOut, handoff1k, handoff1m);
