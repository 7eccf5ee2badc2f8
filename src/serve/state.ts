// What every route of a running server shares: the storage, the workflows it can start, the runs it
// started (to follow them and give their values), and one SQL database reopened when the tables change.
import type { SqlDatabase } from "../sql/database.js";
import type { Storage } from "../storage/types.js";
import type { RunHandle, RunResult } from "../workflow/run-handle.js";
import type { Workflow } from "../workflow/workflow.js";

export interface ServerLimits {
  /** Largest JSON body accepted (bytes). Default 1 MiB. */
  maxBodyBytes: number;
  /** Largest Avro stream file an ingest POST may carry (bytes). Default 64 MiB. */
  maxIngestBytes: number;
  /** A SQL query running longer is stopped (TIMEOUT, 504). */
  sqlTimeoutMs: number;
  /** The longest `?wait=` a run follower may ask for. */
  maxWaitMs: number;
}

export interface ServerState {
  storage: Storage;
  workflows: ReadonlyMap<string, Workflow>;
  limits: ServerLimits;
  /** Runs this server started and that have not ended. */
  active: Map<string, RunHandle>;
  /** Results of runs this server started, newest kept (their values are not in the catalog). */
  results: Map<string, RunResult>;
  /** Starts a run of `workflow` and keeps its handle until it ends. */
  startRun(
    workflow: Workflow,
    options: { input?: unknown; runId?: string; metadata?: Record<string, unknown> },
  ): RunHandle;
  sql(): Promise<SqlDatabase>;
  /** What routes keep between requests (the ingest handlers), by their own keys. */
  extra: Map<string, unknown>;
}
