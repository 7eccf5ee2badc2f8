// `ava.serveWorkflows(flowA, flowB, …)`: the one call of an app's Web Worker entry. The entry imports the
// workflows like any module of the app, so page and worker run the same bundled code; the worker then runs
// the nodes a `workerExecutor` sends it, finding each workflow by name and each node by slug.
import { AvaError } from "../errors.js";
import { browserStorage } from "../storage/browser/browser-storage.js";
import type { Workflow } from "./workflow.js";
import { serveNodes, workflowsByName } from "./worker-runtime.js";

interface WorkerScope {
  postMessage(message: unknown, options: { transfer: Transferable[] }): void;
  addEventListener(type: "message", listener: (e: MessageEvent) => void): void;
}

/** True in a dedicated Web Worker (not on a page, not in Node). */
function inWebWorker(): boolean {
  const scope = globalThis as { WorkerGlobalScope?: abstract new () => unknown };
  return typeof scope.WorkerGlobalScope === "function" && globalThis instanceof scope.WorkerGlobalScope;
}

export function serveWorkflows(...flows: Workflow<unknown>[]): void {
  const byName = workflowsByName("serveWorkflows", flows);
  if (!inWebWorker())
    throw new AvaError(
      "UNAVAILABLE",
      "serveWorkflows runs inside a Web Worker entry (in Node, import it from avalanche-web/node)",
    );
  const scope = globalThis as unknown as WorkerScope;
  serveNodes(
    {
      post: (message, transfer) => scope.postMessage(message, { transfer }),
      onMessage: (listener) => scope.addEventListener("message", (e) => listener(e.data)),
      reopen(descriptor) {
        if (descriptor.kind === "browser") return browserStorage({ name: descriptor.name, persist: false });
        throw new AvaError("UNAVAILABLE", `a Web Worker cannot open ${descriptor.kind} storage`);
      },
    },
    byName,
  );
}
