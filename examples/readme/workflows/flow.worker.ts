// The Workflows section's worker entry: the app's own module, which its bundler (or tsx) builds.
// #region readme
// flow.worker.ts (in a browser, the same line with `import * as ava from "avalanche-web"`)
import * as ava from "../../../src/node.js";
import { flow } from "./flow.js";

ava.serveWorkflows(flow /*, more workflows */);
// #endregion readme
