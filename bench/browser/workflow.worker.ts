// The Web Worker entry of the workflow bench page: serves the bench's workflows.
import { serveWorkflows } from "../../src/index.js";
import { chain, fanOut, handoff1k, handoff1m } from "../workflow-flows.js";

serveWorkflows(chain, fanOut, handoff1k, handoff1m);
