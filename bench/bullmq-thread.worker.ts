// The worker-thread entry of the BullMQ bench's comparison: the same workflows in worker threads.
import { serveWorkflows } from "../src/node.js";
import { chain, spinning } from "./bullmq-flows.js";

serveWorkflows(chain, spinning);
