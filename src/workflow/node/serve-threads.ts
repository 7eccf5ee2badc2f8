// `serveWorkflows(flowA, flowB, …)` from avalanche-web/node: the one call of an app's worker-thread entry.
// The thread runs the nodes a `workerExecutor` sends it, reopening the run's Node storage by its root
// (or its warehouse storage by bucket and connection string).
import { parentPort } from "node:worker_threads";
import { AvaError } from "../../errors.js";
import { nodeStorage } from "../../storage/node/node-storage.js";
import { reopenWarehouse } from "../../storage/warehouse/warehouse-storage.js";
import type { Workflow } from "../workflow.js";
import { serveNodes, workflowsByName } from "../worker-runtime.js";

export function serveWorkflows(...flows: Workflow<unknown>[]): void {
  const byName = workflowsByName("serveWorkflows", flows);
  const port = parentPort;
  if (!port)
    throw new AvaError(
      "UNAVAILABLE",
      "serveWorkflows runs inside a worker thread's entry, started by workerExecutor({ worker })",
    );
  serveNodes(
    {
      post: (message, transfer) => port.postMessage(message, transfer),
      onMessage: (listener) => port.on("message", listener),
      reopen(descriptor) {
        if (descriptor.kind === "node") return nodeStorage({ root: descriptor.root });
        if (descriptor.kind === "warehouse") return reopenWarehouse(descriptor);
        throw new AvaError("UNAVAILABLE", `a worker thread cannot open ${descriptor.kind} storage`);
      },
    },
    byName,
  );
}
