// The Web Worker of `workerExecutor` (browser): serves nodes of workflow modules it imports by URL.
import { AvaError } from "../errors.js";
import { browserStorage } from "../storage/browser/browser-storage.js";
import { serveNodes } from "./worker-runtime.js";

serveNodes({
  post: (message, transfer) => self.postMessage(message, { transfer }),
  onMessage: (listener) => self.addEventListener("message", (e: MessageEvent) => listener(e.data)),
  reopen(descriptor) {
    if (descriptor.kind === "browser") return browserStorage({ name: descriptor.name, persist: false });
    throw new AvaError("UNAVAILABLE", `a Web Worker cannot open ${descriptor.kind} storage`);
  },
});
