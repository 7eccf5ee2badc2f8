// Catalog entries staged in files made ahead of time. fdatasync of a new file must also write its inode
// (size, blocks) and, on a journalled filesystem, commit a journal transaction: 0.4–0.9 ms on this
// project's VMs (ext4), on every commit. Overwriting blocks that are already allocated, written and synced
// only flushes those blocks (0.2–0.3 ms). So the pool makes files of spaces in the background, a batch at
// a time, and a commit writes its entry over the start of one and fdatasyncs it. The spaces after the
// entry are JSON whitespace, which readers trim.
//
// Files come in whole 4 KiB blocks, one size class per block count: an entry takes the smallest that holds
// it, so it occupies the same blocks on disk as a file of its own size would. A class is filled once an
// entry has asked for it (a process of single-row appends never makes 8 KiB files).
import { randomUUID } from "node:crypto";
import { close, closeSync, fdatasync, open, openSync, unlink, unlinkSync, write, writeSync } from "node:fs";
import { unlink as unlinkFile } from "node:fs/promises";
import { basename, join } from "node:path";

const BLOCK = 4096;
/** The largest pooled file: an entry of 10 inlined rows is ~5 KB. Larger entries are staged the usual way. */
export const MAX_SLOT_BYTES = 2 * BLOCK;
/** Files made per batch (one at a time), and the level under which a new batch is started. */
const BATCH = 32;
const LOW = 16;
/** After making files failed (a full disk, say), how long commits stage the usual way before the pool tries again. */
const RETRY_MS = 60_000;
/**
 * A file older than this is not used (it is deleted): vacuum removes a live process's pool files only when
 * far older (POOL_VACUUM_MS), so it never deletes one between its take and its link.
 */
const MAX_AGE_MS = 10 * 60_000;
const POOL_VACUUM_MS = 60 * 60_000;
/** Pool files are `_catalog/tmp/pool-<pid>-<uuid>.tmp`: vacuum tells them apart, and whose they are. */
export const POOL_PREFIX = "pool-";

const SPACES = Buffer.alloc(MAX_SLOT_BYTES, 0x20);

interface Slot {
  path: string;
  madeMs: number;
}

/** A new file of `bytes` spaces, durable (data, size and blocks) when the promise resolves. */
function makeSlot(dir: string, bytes: number): Promise<Slot> {
  const path = join(dir, `${POOL_PREFIX}${process.pid}-${randomUUID()}.tmp`);
  return new Promise((resolve, reject) => {
    open(path, "wx", (openErr, fd) => {
      if (openErr) return reject(openErr);
      write(fd, SPACES, 0, bytes, 0, (writeErr, written) => {
        const done = (err: NodeJS.ErrnoException | null) =>
          close(fd, () => {
            if (!err && written === bytes) return resolve({ path, madeMs: Date.now() });
            unlink(path, () => reject(err ?? new Error(`short write making ${path}`)));
          });
        if (writeErr || written !== bytes) return done(writeErr);
        fdatasync(fd, done);
      });
    });
  });
}

/** The files of one size. */
class SizeClass {
  readonly slots: Slot[] = [];
  filling: Promise<void> | undefined;
  retryAtMs = 0;

  constructor(readonly bytes: number) {}
}

/** Whether process `pid` of this machine is running (EPERM: it is, as another user's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code !== "ESRCH";
  }
}

/**
 * Whether vacuum may remove pool file `name` (not this process's: see `StagingPool.drain`), `ageMs` old:
 * a file whose process is gone (killed, say) once older than `olderThanMs`; any after POOL_VACUUM_MS.
 */
export function poolLeftover(name: string, ageMs: number, olderThanMs: number): boolean {
  if (ageMs >= Math.max(olderThanMs, POOL_VACUUM_MS)) return true;
  const pid = Number(/^pool-(\d+)-/.exec(name)?.[1]);
  return ageMs >= olderThanMs && Number.isSafeInteger(pid) && pid !== process.pid && !alive(pid);
}

/** One pool per folder and process, shared by its catalog instances: vacuum can drain all of this process's. */
const pools = new Map<string, StagingPool>();

// A process that exits takes its unused files with it (one that is killed leaves them to vacuum).
let exitHook = false;
function removeOnExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.once("exit", () => {
    for (const pool of pools.values()) pool.dropSync();
  });
}

export class StagingPool {
  readonly #dir: string;
  readonly #classes: SizeClass[] = [];

  static for(dir: string): StagingPool {
    let pool = pools.get(dir);
    if (!pool) {
      pool = new StagingPool(dir);
      pools.set(dir, pool);
    }
    removeOnExit();
    return pool;
  }

  private constructor(dir: string) {
    this.#dir = dir;
    for (let bytes = BLOCK; bytes <= MAX_SLOT_BYTES; bytes += BLOCK) this.#classes.push(new SizeClass(bytes));
  }

  /**
   * Deletes the files waiting unused (vacuum: the pool fills again when a commit next asks) and returns
   * their names. A file taken by a commit is not among them: it is linked and unlinked by that commit.
   */
  async drain(): Promise<string[]> {
    const names: string[] = [];
    for (const size of this.#classes) {
      await size.filling;
      for (const slot of size.slots.splice(0)) {
        await unlinkFile(slot.path).catch(() => {}); // gone already: removed all the same
        names.push(basename(slot.path));
      }
    }
    return names;
  }

  /**
   * Writes `data` durably into a pooled file and returns its path (the caller links and later unlinks it),
   * or undefined when no file is ready or `data` does not fit: the caller then stages it the usual way.
   */
  async stage(data: Uint8Array): Promise<string | undefined> {
    const size = this.#classes.find((c) => c.bytes >= data.length);
    if (!size) return undefined;
    const path = this.#take(size);
    if (path === undefined) return undefined;
    let fd: number;
    try {
      fd = openSync(path, "r+");
    } catch {
      return undefined; // removed by hand or by a vacuum that ignored the prefix: not ours to explain
    }
    try {
      // Synchronous like writeSmallNewFile's steps, for the same reason: only fdatasync waits for the disk.
      for (let offset = 0; offset < data.length; )
        offset += writeSync(fd, data, offset, data.length - offset, offset);
      await new Promise<void>((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));
    } catch (err) {
      unlink(path, () => {});
      throw err;
    } finally {
      closeSync(fd);
    }
    return path;
  }

  /** Deletes the files waiting unused, now (the process is exiting). */
  dropSync(): void {
    for (const size of this.#classes)
      for (const slot of size.slots.splice(0)) {
        try {
          unlinkSync(slot.path);
        } catch {
          // gone already (a folder removed by its owner)
        }
      }
  }

  /** A synced file of the class's size, if one is ready; starts a batch in the background when few are. */
  #take(size: SizeClass): string | undefined {
    const now = Date.now();
    let slot = size.slots.shift();
    while (slot && now - slot.madeMs > MAX_AGE_MS) {
      unlink(slot.path, () => {});
      slot = size.slots.shift();
    }
    if (size.slots.length < LOW && !size.filling && now >= size.retryAtMs) this.#fill(size);
    return slot?.path;
  }

  /**
   * Makes a batch of files one after another, each usable as soon as it is synced. One at a time: the
   * thread pool runs four requests at once, first come first served, and a batch's opens, writes and
   * fdatasyncs queued together would hold a commit's own fdatasync behind them.
   */
  #fill(size: SizeClass): void {
    size.filling = (async () => {
      for (let i = 0; i < BATCH; i++) {
        try {
          size.slots.push(await makeSlot(this.#dir, size.bytes));
        } catch {
          size.retryAtMs = Date.now() + RETRY_MS;
          return;
        }
      }
    })().finally(() => {
      size.filling = undefined;
    });
  }
}
