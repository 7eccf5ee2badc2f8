// The messages between an executor and its workers.
import type { ErrorInfo } from "../storage/catalog/model.js";
import type { StorageDescriptor } from "../storage/types.js";
import type { NodeTask } from "./invoke.js";
import type { LogLine } from "./logger.js";

export type ToWorker =
  | { type: "run"; id: number; task: NodeTask; storage: StorageDescriptor | undefined }
  | { type: "cancel"; id: number };

export type FromWorker =
  | { type: "log"; id: number; line: LogLine }
  | { type: "done"; id: number; ok: true; value: unknown; lineage: Record<string, string> }
  | { type: "done"; id: number; ok: false; error: ErrorInfo };
