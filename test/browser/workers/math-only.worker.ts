// A Web Worker entry that serves `math`, and a `skipping` built unlike the page's (the suite asks it for others).
import { serveWorkflows } from "../../../src/index.js";
import { otherSkipping } from "../../shared/served-flows.js";
import { math } from "../../shared/workflow-flows.js";

serveWorkflows(math, otherSkipping);
