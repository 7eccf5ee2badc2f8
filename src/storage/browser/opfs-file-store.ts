// Data files in the Origin Private File System, one folder per storage name. A file is written whole, once:
// through a synchronous access handle inside a Worker (the fast path). On a page's main thread, big files
// go to the page's writer Worker (opfs-write-worker.ts), which writes them the same way; small ones, files
// that must appear whole, and all of them where that Worker cannot run use `createWritable` (which swaps
// the complete file in on close). A refused write removes what it began.
import { AvaError, toAvaError } from "../../errors.js";
import type { FileInfo, FileStore, WriteOptions } from "../types.js";
import { pageWriter, WORKER_WRITE_MIN_BYTES } from "./opfs-write-worker.js";

/** The worker-only OPFS handle (lib.dom does not declare it). */
interface SyncAccessHandle {
  getSize(): number;
  write(buffer: Uint8Array, options?: { at?: number }): number;
  truncate(size: number): void;
  flush(): void;
  close(): void;
}
type OpfsFileHandle = FileSystemFileHandle & { createSyncAccessHandle?: () => Promise<SyncAccessHandle> };

/** Chromium's temporary files of an unfinished createWritable; never data. */
const SWAP_SUFFIX = ".crswap";

function segments(path: string): string[] {
  const parts = path.split("/");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we refuse
  if (parts.some((p) => p === "" || p === "." || p === ".." || /[\u0000-\u001f\\]/.test(p))) {
    throw new AvaError("INVALID_NAME", `path ${JSON.stringify(path)} is not a relative storage path`);
  }
  return parts;
}

const isNotFound = (err: unknown) => (err as { name?: string })?.name === "NotFoundError";

/**
 * Removes the file a refused write began. A writer Worker killed mid-write holds the file's lock until the
 * browser has torn it down: the removal is tried again for a few seconds. If it never succeeds the file is
 * an orphan no catalog names (never read; its owner deletes it before writing that path again).
 */
async function removeBegun(dir: FileSystemDirectoryHandle, name: string): Promise<void> {
  for (let delay = 1; ; delay *= 2) {
    try {
      return await dir.removeEntry(name);
    } catch (err) {
      if (isNotFound(err) || delay > 2048) return;
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

export class OpfsFileStore implements FileStore {
  readonly #root: () => Promise<FileSystemDirectoryHandle>;
  readonly #folders = new Map<string, Promise<FileSystemDirectoryHandle>>();

  constructor(root: () => Promise<FileSystemDirectoryHandle>) {
    this.#root = root;
  }

  /** The folder holding `parts`, created on the way when `create`; cached once it exists. */
  async #folder(parts: readonly string[], create: boolean): Promise<FileSystemDirectoryHandle> {
    const key = parts.join("/");
    const cached = this.#folders.get(key);
    if (cached) return cached;
    const found = (async () => {
      let dir = await this.#root();
      for (const part of parts) dir = await dir.getDirectoryHandle(part, { create });
      return dir;
    })();
    this.#folders.set(key, found);
    found.catch(() => this.#folders.delete(key));
    return found;
  }

  async #file(path: string): Promise<FileSystemFileHandle> {
    const parts = segments(path);
    try {
      const dir = await this.#folder(parts.slice(0, -1), false);
      return await dir.getFileHandle(parts.at(-1)!);
    } catch (err) {
      throw isNotFound(err)
        ? new AvaError("NOT_FOUND", `file ${path} does not exist`, { cause: err })
        : toAvaError(err, `opening ${path}`);
    }
  }

  async write(path: string, bytes: Uint8Array, options?: WriteOptions): Promise<void> {
    const parts = segments(path);
    const name = parts.at(-1)!;
    const dir = await this.#folder(parts.slice(0, -1), true).catch((err) => {
      throw toAvaError(err, `creating the folder of ${path}`);
    });
    const handle = (await dir.getFileHandle(name, { create: true }).catch((err) => {
      throw toAvaError(err, `writing ${path}`);
    })) as OpfsFileHandle;
    // "Exists" means holds bytes: the library never writes an empty file, so an empty one is a leftover
    // (or the one just created). Checking the size on the handle we write through saves a lookup per file.
    let existed = false;
    let viaWorker = false;
    const refuse = () => {
      existed = true;
      return new AvaError("IO_ERROR", `file ${path} already exists`);
    };
    try {
      if (typeof handle.createSyncAccessHandle === "function" && !options?.background) {
        const access = await handle.createSyncAccessHandle();
        try {
          if (access.getSize() > 0) throw refuse();
          for (let at = 0; at < bytes.length; ) at += access.write(bytes.subarray(at), { at });
          access.flush();
        } finally {
          access.close();
        }
      } else if (this.#viaWorker(bytes, options)) {
        viaWorker = true;
        if ((await pageWriter().write(handle, bytes)) === "exists") throw refuse();
      } else {
        if ((await handle.getFile()).size > 0) throw refuse();
        const writable = await handle.createWritable();
        try {
          await writable.write(bytes as Uint8Array<ArrayBuffer>);
          await writable.close();
        } catch (err) {
          await writable.abort().catch(() => {});
          throw err;
        }
      }
    } catch (err) {
      if (!existed) await removeBegun(dir, name); // never remove what was there before
      // The writer Worker could not load (a Content-Security-Policy): this and later writes use createWritable.
      if (viaWorker && !existed && !pageWriter().available) return this.write(path, bytes, options);
      throw toAvaError(err, `writing ${path}`);
    }
  }

  /**
   * Whether a main-thread write goes through the writer Worker: big files that need not appear whole (the
   * Worker writes in place; createWritable swaps the finished file in) while the Worker can run.
   */
  #viaWorker(bytes: Uint8Array, options?: WriteOptions): boolean {
    return !options?.whole && bytes.length >= WORKER_WRITE_MIN_BYTES && pageWriter().available;
  }

  async read(path: string): Promise<Uint8Array> {
    const handle = await this.#file(path);
    try {
      return new Uint8Array(await (await handle.getFile()).arrayBuffer());
    } catch (err) {
      throw toAvaError(err, `reading ${path}`);
    }
  }

  async readRange(path: string, offset: number, length: number): Promise<Uint8Array> {
    const handle = await this.#file(path);
    try {
      const file = await handle.getFile();
      return new Uint8Array(await file.slice(offset, offset + length).arrayBuffer());
    } catch (err) {
      throw toAvaError(err, `reading ${path}`);
    }
  }

  async list(prefix: string): Promise<FileInfo[]> {
    const base = prefix.includes("/") ? prefix.slice(0, prefix.lastIndexOf("/")) : "";
    let start: FileSystemDirectoryHandle;
    try {
      start = await this.#folder(base ? segments(base) : [], false);
    } catch (err) {
      if (isNotFound(err)) return [];
      throw toAvaError(err, `listing ${prefix}`);
    }
    const out: FileInfo[] = [];
    const walk = async (dir: FileSystemDirectoryHandle, at: string): Promise<void> => {
      for await (const [name, entry] of dir.entries()) {
        const path = at ? `${at}/${name}` : name;
        if (entry.kind === "directory") await walk(entry as FileSystemDirectoryHandle, path);
        else if (path.startsWith(prefix) && !name.endsWith(SWAP_SUFFIX)) {
          // A file another context is writing right now is locked: it is not a finished file yet.
          const file = await (entry as FileSystemFileHandle).getFile().catch(() => undefined);
          if (file) out.push({ path, size: file.size, modifiedMs: file.lastModified });
        }
      }
    };
    await walk(start, base);
    return out;
  }

  async delete(path: string): Promise<void> {
    const parts = segments(path);
    try {
      const dir = await this.#folder(parts.slice(0, -1), false);
      await dir.removeEntry(parts.at(-1)!);
    } catch (err) {
      if (!isNotFound(err)) throw toAvaError(err, `deleting ${path}`);
    }
  }
}
