// avalanche-web/node: everything in the core, plus the Node filesystem adapter and the warehouse storage
// (S3 + Postgres, whose drivers are optional peer dependencies loaded on first use).
export * from "./index.js";
export { type NodeStorageOptions, nodeStorage } from "./storage/node/node-storage.js";
export {
  type WarehouseDescriptor,
  type WarehouseStorageOptions,
  warehouseStorage,
} from "./storage/warehouse/warehouse-storage.js";
export {
  type S3ClientLike,
  type S3ClientSettings,
  type S3FileStore,
  type S3FileStoreOptions,
  type S3Location,
  s3FileStore,
} from "./storage/warehouse/s3-file-store.js";
export {
  type PostgresCatalog,
  type PostgresCatalogOptions,
  type PostgresLocation,
  postgresCatalog,
} from "./storage/warehouse/postgres-catalog.js";
export { closePostgresPools } from "./storage/warehouse/pool-registry.js";
export type { RetryOptions } from "./storage/warehouse/retry.js";
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
