// Storage = FileStore (immutable bytes) + Catalog (transactional metadata) + a plain-data descriptor that a
// Worker or worker thread uses to reopen the same storage.
import type { ParquetEncoder } from "../parquet/parquet.js";
import type { CommitOptions } from "./catalog/log-catalog.js";
import type { CatalogOp, CatalogState, CommitResult } from "./catalog/state.js";
import type { AutoMaintenanceOptions } from "../table/maintenance-runner.js";
import type { WarehouseDescriptor } from "./warehouse/warehouse-storage.js";

export interface FileInfo {
  path: string;
  size: number;
  modifiedMs: number;
}

/** How a file is written. */
export interface WriteOptions {
  /**
   * Whether the file must survive power loss once the write resolves (a store that syncs, like Node's with
   * fsync on, syncs it). Default true; false for files that can be rebuilt, such as Iceberg metadata.
   */
  durable?: boolean;
  /**
   * Readers never see the file part-written: it appears whole or not at all. S3 objects, memory and
   * IndexedDB files always do; a Node store writes it under a temporary name and links it into place (OPFS
   * in a Worker does not: no other reader looks there). For files readers find by name or by listing alone,
   * such as Iceberg's metadata JSON and version hint.
   */
  whole?: boolean;
  /**
   * The write is a background task's (a flush, a compaction): a store whose fastest write blocks the
   * thread — OPFS sync access handles in a Worker — writes asynchronously instead, so the appends of that
   * Worker go on meanwhile. Default false.
   */
  background?: boolean;
  /**
   * The caller gives the bytes up: it will not change them after the call. A store that keeps files in
   * memory keeps these very bytes instead of a copy of its own (a live stream's batch, 2–5 MB each).
   */
  handOver?: boolean;
}

/** Byte-level, write-once files under `/`-separated relative paths. */
export interface FileStore {
  /** Writes a whole new file; refuses to overwrite one that exists. */
  write(path: string, bytes: Uint8Array, options?: WriteOptions): Promise<void>;
  /** Reads a whole file; NOT_FOUND when missing. */
  read(path: string): Promise<Uint8Array>;
  readRange(path: string, offset: number, length: number): Promise<Uint8Array>;
  /** Files whose path starts with `prefix`. */
  list(prefix: string): Promise<FileInfo[]>;
  /** Deletes a file; missing files are not an error. */
  delete(path: string): Promise<void>;
  /** The file's absolute path on the local filesystem, for stores whose files are plain files (Node). */
  localPath?(path: string): string;
}

/** Metadata with atomic, optimistically concurrent commits. */
export interface Catalog {
  /** The latest committed state (catching up with other writers first). Treat it as immutable. */
  current(): Promise<CatalogState>;
  /** The state this instance last saw, without any I/O (undefined before the first read); may be stale. */
  peek(): CatalogState | undefined;
  /** Applies all ops atomically against the latest state, or none; appends rebase and retry. */
  commit(ops: readonly CatalogOp[], options?: CommitOptions): Promise<CommitResult>;
  /**
   * Calls `listener` with each newer state this instance learns of: its own commits at once, commits of
   * other instances (tabs, Workers, processes) as the storage signals or polls them. Returns the unsubscribe.
   */
  subscribe(listener: (state: CatalogState) => void): () => void;
  /** Removes the catalog's own leftovers (temp files of crashed writers) older than `olderThanMs`. */
  vacuum(olderThanMs: number): Promise<string[]>;
  /**
   * Removes log entries and checkpoints covered by a checkpoint at least `graceMs` old (see LogCatalog).
   * Absent: the catalog keeps its history.
   */
  cleanup?(graceMs: number, options?: CleanupOptions): Promise<string[]>;
}

export interface CleanupOptions {
  /** Whether cleanup may write a checkpoint to clean up to later (default true). */
  checkpoint?: boolean;
}

export type StorageDescriptor =
  | { kind: "memory"; id: string }
  | { kind: "node"; root: string }
  | { kind: "browser"; name: string }
  // Data files in S3-compatible object storage, the catalog in Postgres (Node only: avalanche-web/node).
  | WarehouseDescriptor;

export interface Storage {
  readonly descriptor: StorageDescriptor;
  readonly files: FileStore;
  readonly catalog: Catalog;
  /**
   * The clock snapshots, retention ages and grace periods are measured on (default Date.now). Tests pass a
   * controllable one to fast-forward time; file modification times (orphan vacuum) stay on the real clock.
   */
  readonly now?: () => number;
  /** Background maintenance for every table of the storage, started when a namespace opens on it. */
  readonly maintenance?: AutoMaintenanceOptions;
  /**
   * Where flushes and compactions have parquet-wasm write their files, when not on the calling thread
   * (Node: a worker thread, so that a sequential appender's thread does not carry them).
   */
  readonly parquetEncoder?: ParquetEncoder;
}

/** The storage's clock. */
export function clockOf(storage: Storage): number {
  return storage.now ? storage.now() : Date.now();
}
