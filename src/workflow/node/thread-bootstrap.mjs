// Starts a worker thread on a TypeScript entry (tests run the sources): tsx first, then the entry.
import { workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
await import(workerData.entry);
