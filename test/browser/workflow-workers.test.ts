// The workflow engine with Web Workers in Chromium: test/shared/workflow-flows.ts imported in each Worker.
import { browserStorage, workerExecutor } from "../../src/index.js";
import { ulid } from "../../src/util/ids.js";
import { describeExecutor } from "../shared/workflow-executors.js";

describeExecutor("Web Workers", {
  executor: (size) =>
    workerExecutor({ module: new URL("../shared/workflow-flows.ts", import.meta.url), size }),
  storage: () => browserStorage({ name: `wf${ulid()}`, persist: false }),
});
