// avalanche-web: the isomorphic core. Re-exports only; nothing here may reach a `node:*` module.
/** Avro stream telemetry files: `ava.avro.createWriter(...)`, `ava.avro.openAvroStream(...)`, … */
export * as avro from "./avro.js";
export { AvaError, type AvaErrorCode, isAvaError, toAvaError } from "./errors.js";
export { json } from "./schema/json.js";
export type { RunProvenance } from "./schema/provenance.js";
export { PROVENANCE_FIELDS } from "./schema/provenance.js";
export type { SchemaSource } from "./schema/table-schema.js";
export type {
  ColumnStats,
  DataFile,
  SchemaVersion,
  Snapshot,
  SnapshotOperation,
  StatValue,
} from "./storage/catalog/model.js";
export type { CatalogOp, CatalogState, CommitResult, ScheduleState } from "./storage/catalog/state.js";
export {
  type CatalogLog,
  type CommitOptions,
  LogCatalog,
  type StagedEntry,
} from "./storage/catalog/log-catalog.js";
export {
  type BrowserStorage,
  type BrowserStorageOptions,
  browserStorage,
} from "./storage/browser/browser-storage.js";
export { opfsFileSink } from "./storage/browser/opfs-avro-sink.js";
export { type MemoryStorageOptions, memoryStorage } from "./storage/memory/memory-storage.js";
export type { Catalog, FileInfo, FileStore, Storage, StorageDescriptor } from "./storage/types.js";
export { AppendResult } from "./table/append-result.js";
export {
  type BoundTableDeclaration,
  type TableDeclaration,
  type TableOptions,
  table,
} from "./table/declare.js";
export {
  defineNamespace,
  type Namespace,
  type NamespaceDefinition,
  type NamespaceHandle,
} from "./table/namespace.js";
export {
  type Predicate,
  type ProvenanceColumns,
  type Scalar,
  type Where,
  where,
} from "./table/predicate.js";
export { Scan, type ScanPlan } from "./table/scan.js";
export type { CommitEvent, CommitListener } from "./table/subscribe.js";
export { type AppendInput, type AppendOptions, type ScanOptions, Table } from "./table/table.js";
export {
  type IngestOptions,
  type IngestReceipt,
  type IngestTarget,
  ingestHandler,
} from "./ingest/ingest-handler.js";
export { errorResponse, httpStatusOf } from "./ingest/http-errors.js";
export { type VacuumOptions, type VacuumResult, vacuum } from "./table/vacuum.js";
export { exportIceberg, type IcebergExport, type IcebergOptions } from "./iceberg/export.js";
export type { DropResult } from "./table/drop.js";
export type { CompactOptions, CompactResult } from "./table/compact.js";
export type { ExpireResult, RetentionOptions } from "./table/expire.js";
export { type MaintenanceOptions, type MaintenanceResult, maintain } from "./table/maintain.js";
export type { InlineOptions } from "./table/inline-data.js";
export type { FlushOptions, InlineFlushStatus } from "./table/inline-flush.js";
export {
  type AutoMaintenanceOptions,
  type MaintenanceRunner,
  startMaintenance,
} from "./table/maintenance-runner.js";
export type {
  ErrorInfo,
  NodeRecord,
  NodeStatus,
  RunRecord,
  RunStatus,
  StreamState,
} from "./storage/catalog/model.js";
export {
  isSkip,
  type RunContext,
  type RunInputRef,
  runContext,
  runInput,
  Skip,
  skip,
} from "./workflow/context.js";
export { type LogLevel, type Logger, type LoggerMarker, type LogLine, logger } from "./workflow/logger.js";
export {
  type ConsumeOptions,
  type ConsumeResult,
  type ConsumeTransaction,
  consume,
} from "./workflow/consume.js";
export { Cursor, type CursorProvider, type CursorTransaction, cursor } from "./workflow/cursor.js";
export { type Executor, type ExecutorRun, inlineExecutor } from "./workflow/executor.js";
export { NodeFuture, ParallelGroup, parallel } from "./workflow/future.js";
export type { NodeEvents, NodeOutcome, NodeTask } from "./workflow/invoke.js";
export {
  type Cardinality,
  modelStream,
  type StreamOptions,
  type StreamProvider,
  stream,
  streamState,
} from "./workflow/providers.js";
export {
  type PendingSnapshot,
  pendingSnapshots,
  releaseSnapshot,
  resetStream,
} from "./workflow/stream-admin.js";
export type { NodeHookInfo, RunHooks, RunOptions } from "./workflow/run.js";
export type { NodeResult, RunError, RunEvent, RunHandle, RunResult } from "./workflow/run-handle.js";
export { type RerunSpec, rerun } from "./workflow/rerun.js";
export { getRun, listRuns } from "./workflow/runs.js";
export { dest, type Step, type StepDefinition, type StepOptions, source, step } from "./workflow/step.js";
export {
  type CatchUp,
  type Resolved,
  Workflow,
  type WorkflowOptions,
  type WorkflowSchedule,
  workflow,
} from "./workflow/workflow.js";
export { Cron } from "./workflow/cron.js";
export { type WorkerExecutorOptions, workerExecutor } from "./workflow/web-executor.js";
export { serveWorkflows } from "./workflow/serve-workflows.js";
