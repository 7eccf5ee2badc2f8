// Every path the Node adapter touches is resolved inside `root`; anything that would leave it is refused.
// Plus the two filesystem habits both Node files share: exclusive writes and AvaError mapping.
import { close, closeSync, fdatasync, open, openSync, write, writeSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { setImmediate as afterPoll } from "node:timers/promises";
import { AvaError, isAvaError } from "../../errors.js";

export function insideRoot(root: string, path: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we refuse
  if (path === "" || isAbsolute(path) || path.includes("\\") || /[\u0000-\u001f]/.test(path)) {
    throw new AvaError("INVALID_NAME", `path ${JSON.stringify(path)} is not a relative storage path`);
  }
  const full = resolve(root, path);
  const rel = relative(root, full);
  if (
    rel === "" ||
    rel.startsWith(`..${sep}`) ||
    rel === ".." ||
    isAbsolute(rel) ||
    path.split("/").includes("..")
  ) {
    throw new AvaError("INVALID_NAME", `path ${JSON.stringify(path)} leaves the storage root`);
  }
  return full;
}

/** A filesystem error as an AvaError (one that already is passes through unchanged). */
export function ioError(err: unknown, what: string): AvaError {
  if (isAvaError(err)) return err;
  const code = (err as { code?: string }).code;
  if (code === "ENOENT") return new AvaError("NOT_FOUND", `${what}: no such file`, { cause: err });
  if (code === "ENOSPC" || code === "EDQUOT")
    return new AvaError("QUOTA_EXCEEDED", `${what}: disk full`, { cause: err });
  return new AvaError("IO_ERROR", `${what}: ${(err as Error).message}`, { cause: err });
}

/**
 * Creates `full` with `bytes`, failing if it exists; with `fsync`, durable when the promise resolves.
 * One chain of callbacks (open, write, fdatasync, close: four thread-pool trips and no FileHandle) —
 * a small commit is mostly this, and the promise API's wrappers and writeFile's extra steps cost ~10%.
 * fdatasync flushes the data and the size a reader needs, not the timestamps fsync would add.
 */
export function writeNewFile(full: string, bytes: string | Uint8Array, fsync: boolean): Promise<void> {
  const data = typeof bytes === "string" ? Buffer.from(bytes) : bytes;
  return new Promise((resolve, reject) => {
    open(full, "wx", (openErr, fd) => {
      if (openErr) return reject(openErr);
      const finish = (err: NodeJS.ErrnoException | null) =>
        close(fd, (closeErr) => (err || closeErr ? reject(err ?? closeErr) : resolve()));
      const writeFrom = (offset: number): void =>
        write(fd, data, offset, data.length - offset, null, (err, written) => {
          if (err) return finish(err);
          if (offset + written < data.length) return writeFrom(offset + written);
          if (fsync) fdatasync(fd, finish);
          else finish(null);
        });
      writeFrom(0);
    });
  });
}

/**
 * `writeNewFile` for small files (catalog entries and checkpoints, data files of small commits, Iceberg
 * metadata): open, write and close are done synchronously, and only the fdatasync — the one step that waits
 * for the disk — is left to `durable` (the thread pool, or record-sync.ts's choice between it and this
 * thread); without `durable`, no fdatasync. On a local disk each of the three takes microseconds, while a
 * thread-pool trip costs a wake-up of two threads (~0.1 ms, several times that on a loaded machine) and a
 * sequential appender pays every trip in its latency. The steps, their order and what is durable when the
 * promise resolves are those of `writeNewFile`. Without `durable` the promise resolves from setImmediate: a
 * tight loop of commits that never reached the event loop's poll phase would starve every other I/O
 * callback (a background flush) until it ended, and setImmediate runs only after that phase. The price: a
 * disk that stalls (a network mount) stalls the event loop too.
 */
export async function writeSmallNewFile(
  full: string,
  bytes: string | Uint8Array,
  durable: ((fd: number) => Promise<void>) | undefined,
): Promise<void> {
  const data = typeof bytes === "string" ? Buffer.from(bytes) : bytes;
  const fd = openSync(full, "wx");
  try {
    for (let offset = 0; offset < data.length; ) offset += writeSync(fd, data, offset, data.length - offset);
    await (durable ? durable(fd) : afterPoll());
  } finally {
    closeSync(fd);
  }
}

/**
 * Refuses a folder that resolves outside the root once symlinks are followed: `insideRoot` only checks the
 * path's text, and a symlinked folder inside the root would let writes land anywhere.
 */
export async function checkRealFolder(root: string, folder: string, path: string): Promise<void> {
  // The deepest part of `folder` that exists (checked before mkdir, so no folder is made outside either).
  const existing = async (dir: string): Promise<string> => {
    try {
      return await realpath(dir);
    } catch (err) {
      if ((err as { code?: string }).code !== "ENOENT" || dirname(dir) === dir) throw err;
      return existing(dirname(dir));
    }
  };
  const [realRoot, real] = await Promise.all([existing(root), existing(folder)]);
  const rel = relative(realRoot, real);
  if (rel === "" || (!rel.startsWith("..") && !isAbsolute(rel))) return;
  throw new AvaError(
    "INVALID_NAME",
    `path ${JSON.stringify(path)} leads outside the storage root through a symbolic link (to ${real})`,
  );
}
