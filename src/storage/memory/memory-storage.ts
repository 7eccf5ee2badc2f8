// In-memory storage for tests and ephemeral work. Storages with the same id share their data within this
// JavaScript context (a Worker has its own context, so it cannot reopen a memory storage of the page).
import { AvaError } from "../../errors.js";
import { ulid } from "../../util/ids.js";
import { type CatalogLog, LogCatalog } from "../catalog/log-catalog.js";
import type { FileInfo, FileStore, Storage } from "../types.js";

interface MemoryData {
  files: Map<string, { bytes: Uint8Array; modifiedMs: number }>;
  log: string[];
  /** Every storage instance of this id watching the log (see CatalogLog.watch). */
  watchers: Set<() => void>;
}

const registry = new Map<string, MemoryData>();

class MemoryFileStore implements FileStore {
  constructor(private readonly data: MemoryData) {}

  async write(path: string, bytes: Uint8Array): Promise<void> {
    if (this.data.files.has(path)) throw new AvaError("IO_ERROR", `file ${path} already exists`);
    this.data.files.set(path, { bytes: bytes.slice(), modifiedMs: Date.now() });
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
    return this.data.log.slice(version - 1);
  }
  async stage(entry: string) {
    const { log, watchers } = this.data;
    return {
      async publish(version: number) {
        if (log.length !== version - 1) return false;
        log.push(entry);
        // Told after the commit returns, as another context would be.
        for (const w of watchers) queueMicrotask(w);
        return true;
      },
      async discard() {},
    };
  }
  async latestCheckpoint() {
    return undefined; // the whole log is in memory; replay is cheap
  }
  async writeCheckpoint() {}
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
}

export function memoryStorage({ id = ulid() }: MemoryStorageOptions = {}): Storage {
  let data = registry.get(id);
  if (!data) {
    data = { files: new Map(), log: [], watchers: new Set() };
    registry.set(id, data);
  }
  return {
    descriptor: { kind: "memory", id },
    files: new MemoryFileStore(data),
    catalog: new LogCatalog(new MemoryLog(data), { checkpointEvery: Number.POSITIVE_INFINITY }),
  };
}
