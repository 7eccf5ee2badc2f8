// avalanche-web/node: everything in the core, plus the Node filesystem adapter.
export * from "./index.js";
export { type NodeStorageOptions, nodeStorage } from "./storage/node/node-storage.js";
export { nodeFileSink, nodeFileSource } from "./storage/node/avro-files.js";
export { type ThreadExecutorOptions, workerExecutor } from "./workflow/node/thread-executor.js";
export { serveWorkflows } from "./workflow/node/serve-threads.js";
export {
  type RunningServer,
  type ServerOptions,
  startServer,
} from "./serve/server.js";
export { type Clock, ManualClock, systemClock } from "./serve/clock.js";
export type { Route, RouteContext } from "./serve/routes.js";
export { type FetchHandler, toNodeListener } from "./ingest/node-listener.js";
export {
  type BullmqExecutorOptions,
  bullmqExecutor,
  type StepJobOptions,
} from "./workflow/node/bullmq/executor.js";
export { type BullmqWorker, type ServeBullmqOptions, serveBullmq } from "./workflow/node/bullmq/serve.js";
export type { RedisConnection } from "./workflow/node/bullmq/protocol.js";
