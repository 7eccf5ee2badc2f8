// The worker-thread entry of the BullMQ bench's comparison: the same workflows in worker threads.
import { serveWorkflows } from "../src/node.js";
import { chain100, fanOut, spinning } from "./bullmq-flows.js";

serveWorkflows(chain100, fanOut, spinning);
