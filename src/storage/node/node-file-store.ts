// Data files on the Node filesystem under `root`. Files are written once (flag "wx"); a writer killed
// mid-write leaves a partial file that no commit references, which vacuum() removes.
import { linkSync, unlinkSync, writeFileSync } from "node:fs";
import { link, mkdir, open, readdir, readFile, stat, unlink } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import type { FileInfo, FileStore, WriteOptions } from "../types.js";
import { fdatasyncAsync } from "./fd-async.js";
import { checkRealFolder, insideRoot, ioError, writeNewFile, writeSmallNewFile } from "./paths.js";
import { RecordSync } from "./record-sync.js";

/**
 * A small file goes to the page cache in tens of microseconds; the asynchronous open/write/close costs three
 * thread-pool round trips, which made the small files Iceberg metadata writes on every commit
 * (`durable: false`) cost more than the commit itself, and a small commit's data file ~1.5× its latency.
 * Files up to this size are written synchronously.
 */
const SYNC_WRITE_MAX = 1 << 20;
/**
 * A durable file up to this size (a small append's data file is a few KB) is fdatasync'ed as RecordSync
 * chooses: on this thread while the disk is fast. A larger one's flush takes longer and is rarely on a
 * commit's path (a background flush's or compaction's output): it goes to the thread pool, leaving the
 * event loop to the appenders.
 */
const CALLING_THREAD_SYNC_MAX = 64 * 1024;

/** Temporary names of `whole` writes: unique in this process (the pid tells processes apart). */
let partials = 0;

export class NodeFileStore implements FileStore {
  /** Folders known to exist, so that a write is not preceded by a mkdir every time. */
  readonly #folders = new Set<string>();
  readonly #recordSync = new RecordSync();
  readonly #syncData = (fd: number) => this.#recordSync.sync(fd);

  constructor(
    private readonly root: string,
    private readonly fsync: boolean,
  ) {}

  localPath(path: string): string {
    return insideRoot(this.root, path);
  }

  async write(
    path: string,
    bytes: Uint8Array,
    { durable = true, whole = false }: WriteOptions = {},
  ): Promise<void> {
    const full = insideRoot(this.root, path);
    try {
      const folder = dirname(full);
      if (!this.#folders.has(folder)) {
        await checkRealFolder(this.root, folder, path);
        await mkdir(folder, { recursive: true });
        this.#folders.add(folder);
      }
      const small = bytes.length <= SYNC_WRITE_MAX;
      if (whole) await this.#linkedIntoPlace(full, bytes, small, durable);
      else if (!small) await writeNewFile(full, bytes, this.fsync && durable);
      else if (durable) await this.#writeSmall(full, bytes);
      else writeFileSync(full, bytes, { flag: "wx" });
    } catch (err) {
      throw ioError(err, `writing ${path}`);
    }
  }

  /**
   * A `whole` write: the bytes go to a temporary name beside the file, which link() then gives its own name —
   * at once, and only if no file has it (write-once stays). A writer killed meanwhile leaves only the
   * temporary file.
   */
  async #linkedIntoPlace(full: string, bytes: Uint8Array, small: boolean, durable: boolean): Promise<void> {
    const partial = `${full}.${process.pid}-${(partials++).toString(36)}.partial`;
    if (small) {
      if (durable) await this.#writeSmall(partial, bytes);
      else writeFileSync(partial, bytes, { flag: "wx" });
      try {
        linkSync(partial, full);
      } finally {
        unlinkSync(partial);
      }
      return;
    }
    await writeNewFile(partial, bytes, this.fsync && durable);
    try {
      await link(partial, full);
    } finally {
      await unlink(partial);
    }
  }

  /** A small durable file: synchronous steps, then (with fsync) the fdatasync where its size says. */
  #writeSmall(full: string, bytes: Uint8Array): Promise<void> {
    const durable = bytes.length <= CALLING_THREAD_SYNC_MAX ? this.#syncData : fdatasyncAsync;
    return writeSmallNewFile(full, bytes, this.fsync ? durable : undefined);
  }

  async read(path: string): Promise<Uint8Array> {
    try {
      return new Uint8Array(await readFile(insideRoot(this.root, path)));
    } catch (err) {
      throw ioError(err, `reading ${path}`);
    }
  }

  async readRange(path: string, offset: number, length: number): Promise<Uint8Array> {
    try {
      const handle = await open(insideRoot(this.root, path), "r");
      try {
        const buffer = new Uint8Array(length);
        const { bytesRead } = await handle.read(buffer, 0, length, offset);
        return buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    } catch (err) {
      throw ioError(err, `reading ${path}`);
    }
  }

  async list(prefix: string): Promise<FileInfo[]> {
    const out: FileInfo[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries: import("node:fs").Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (err) {
        if ((err as { code?: string }).code === "ENOENT") return;
        throw ioError(err, `listing ${dir}`);
      }
      for (const e of entries) {
        const full = join(dir, e.name);
        if (e.isDirectory()) await walk(full);
        else if (e.isFile()) {
          const path = relative(this.root, full).split(sep).join("/");
          if (!path.startsWith(prefix)) continue;
          const s = await stat(full).catch(() => undefined);
          if (s) out.push({ path, size: s.size, modifiedMs: s.mtimeMs });
        }
      }
    };
    // Walk from the deepest folder the prefix names, not the whole root.
    const folder = prefix.includes("/") ? prefix.slice(0, prefix.lastIndexOf("/")) : "";
    await walk(folder ? insideRoot(this.root, folder) : this.root);
    return out;
  }

  /**
   * Synchronous, as small unsynced writes are: an unlink is a few microseconds of the kernel's, and the
   * thread-pool round trip of an asynchronous one cost several times that (Iceberg replaces its version hint
   * this way on every metadata version).
   */
  async delete(path: string): Promise<void> {
    try {
      unlinkSync(insideRoot(this.root, path));
    } catch (err) {
      if ((err as { code?: string }).code !== "ENOENT") throw ioError(err, `deleting ${path}`);
    }
  }
}
