// In-memory storage for tests and ephemeral work. Storages with the same id share their data within this
// JavaScript context (a Worker has its own context, so it cannot reopen a memory storage of the page).
import { AvaError } from "../../errors.js";
import { ulid } from "../../util/ids.js";
import { type CatalogLog, LogCatalog, logGap } from "../catalog/log-catalog.js";
import type { FileInfo, FileStore, Storage, WriteOptions } from "../types.js";
import type { AutoMaintenanceOptions } from "../../table/maintenance-runner.js";

interface MemoryData {
  files: Map<string, { bytes: Uint8Array; modifiedMs: number }>;
  log: string[];
  /** Entries before this version were removed by cleanup (`log[0]` is entry `first`). */
  first: number;
  checkpoints: Map<number, Uint8Array>;
  /** Every storage instance of this id watching the log (see CatalogLog.watch). */
  watchers: Set<() => void>;
}

const registry = new Map<string, MemoryData>();

class MemoryFileStore implements FileStore {
  constructor(private readonly data: MemoryData) {}

  async write(path: string, bytes: Uint8Array, { handOver = false }: WriteOptions = {}): Promise<void> {
    if (this.data.files.has(path)) throw new AvaError("IO_ERROR", `file ${path} already exists`);
    // A copy unless the caller handed the bytes over: it may reuse its buffer once the write resolves.
    this.data.files.set(path, { bytes: handOver ? bytes : bytes.slice(), modifiedMs: Date.now() });
  }

  async read(path: string): Promise<Uint8Array> {
    const file = this.data.files.get(path);
    if (!file) throw new AvaError("NOT_FOUND", `file ${path} does not exist`);
    return file.bytes.slice();
  }

  async readRange(path: string, offset: number, length: number): Promise<Uint8Array> {
    return (await this.read(path)).subarray(offset, offset + length);
  }

  async list(prefix: string): Promise<FileInfo[]> {
    return [...this.data.files]
      .filter(([path]) => path.startsWith(prefix))
      .map(([path, f]) => ({ path, size: f.bytes.length, modifiedMs: f.modifiedMs }));
  }

  async delete(path: string): Promise<void> {
    this.data.files.delete(path);
  }
}

class MemoryLog implements CatalogLog {
  constructor(private readonly data: MemoryData) {}
  async readFrom(version: number) {
    const { log, first } = this.data;
    if (version < first && log.length > 0) throw logGap(version, first);
    return log.slice(Math.max(0, version - first));
  }
  async stage(entry: string) {
    const data = this.data;
    const { log, watchers } = data;
    return {
      async publish(version: number) {
        if (data.first + log.length !== version) return false;
        log.push(entry);
        // Told after the commit returns, as another context would be.
        for (const w of watchers) queueMicrotask(w);
        return true;
      },
      async discard() {},
    };
  }
  async latestCheckpoint() {
    const version = Math.max(0, ...this.data.checkpoints.keys());
    const state = this.data.checkpoints.get(version);
    return state ? { version, state } : undefined;
  }
  async writeCheckpoint(version: number, state: Uint8Array) {
    this.data.checkpoints.set(version, state);
  }
  async checkpointHeads(bytes: number) {
    return [...this.data.checkpoints].map(([version, state]) => ({
      version,
      head: state.subarray(0, bytes),
    }));
  }
  async removeCheckpoints(versions: readonly number[]) {
    for (const v of versions) this.data.checkpoints.delete(v);
  }
  async removeBefore(version: number) {
    const data = this.data;
    const removed: string[] = [];
    for (const v of [...data.checkpoints.keys()])
      if (v < version) {
        data.checkpoints.delete(v);
        removed.push(`checkpoint ${v}`);
      }
    const drop = Math.min(data.log.length, Math.max(0, version - data.first));
    for (let i = 0; i < drop; i++) removed.push(`entry ${data.first + i}`);
    data.log.splice(0, drop);
    data.first += drop;
    return removed;
  }
  async vacuum() {
    return [];
  }
  watch(onChange: () => void) {
    const watchers = this.data.watchers;
    const watcher = () => onChange();
    watchers.add(watcher);
    return () => {
      watchers.delete(watcher);
    };
  }
}

export interface MemoryStorageOptions {
  /** Reopens the storage of that id in this context; a fresh id by default. */
  id?: string;
  /** The clock of snapshots, retention and grace periods (default Date.now); tests fast-forward it. */
  now?: () => number;
  /** `{ auto: true, ... }`: background maintenance of every table (see AutoMaintenanceOptions). */
  maintenance?: AutoMaintenanceOptions;
}

export function memoryStorage({ id = ulid(), now, maintenance }: MemoryStorageOptions = {}): Storage {
  let data = registry.get(id);
  if (!data) {
    data = { files: new Map(), log: [], first: 1, checkpoints: new Map(), watchers: new Set() };
    registry.set(id, data);
  }
  return {
    descriptor: { kind: "memory", id },
    files: new MemoryFileStore(data),
    catalog: new LogCatalog(new MemoryLog(data), {
      checkpointEvery: Number.POSITIVE_INFINITY,
      ...(now ? { now } : {}),
    }),
    ...(now ? { now } : {}),
    ...(maintenance ? { maintenance } : {}),
  };
}
