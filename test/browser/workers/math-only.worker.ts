// A Web Worker entry that serves one workflow only (the suite asks it for another).
import { serveWorkflows } from "../../../src/index.js";
import { math } from "../../shared/workflow-flows.js";

serveWorkflows(math);
