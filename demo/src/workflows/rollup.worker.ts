// The app's own worker entry for workflows: Vite bundles it like any module of the app, with the page's
// copy of avalanche-web and Arrow. The page's workerExecutor starts it; it serves the rollup workflow.
import * as ava from "avalanche-web";
import { rollupFlow } from "./rollup.js";

ava.serveWorkflows(rollupFlow);
