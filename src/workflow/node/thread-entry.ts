// The worker thread of `workerExecutor` (Node): serves nodes of workflow modules it imports by URL.
import { parentPort } from "node:worker_threads";
import { AvaError } from "../../errors.js";
import { nodeStorage } from "../../storage/node/node-storage.js";
import { serveNodes } from "../worker-runtime.js";

const port = parentPort!;
serveNodes({
  post: (message, transfer) => port.postMessage(message, transfer),
  onMessage: (listener) => port.on("message", listener),
  reopen(descriptor) {
    if (descriptor.kind === "node") return nodeStorage({ root: descriptor.root });
    throw new AvaError("UNAVAILABLE", `a worker thread cannot open ${descriptor.kind} storage`);
  },
});
