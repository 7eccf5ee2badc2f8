// The browser catalog's checkpoints as OPFS files (`_catalog/checkpoints/<version>-<id>.jsonl` beside the
// data files), each named by a small record in IndexedDB's "checkpoints" store under its version.
//
// Why not the state itself in IndexedDB, as catalogs before this one did: Chromium runs an origin's
// IndexedDB writes one after another, so the put of a 0.3–0.6 MB state held every commit of every tab and
// Worker of the origin for its whole duration — from a helper Worker too, and from another database
// (measured: a stream of small commits beside one such put waited as long as the put took, 20–30 ms on a
// loaded machine; beside an OPFS write of the same bytes, no longer than without it). An OPFS write of a
// big file goes through the OPFS writer Worker (opfs-write-worker.ts), off the committing thread.
//
// Order: the file is written whole (flushed) before its record is put, so a record always names a whole
// file; a file without a record (a writer killed between the two, or the loser of two contexts writing
// the same version) is an orphan that cleanup deletes once it is older than the checkpoints it keeps.
// Records are deleted before their files. Catalogs whose checkpoints are the bytes themselves still open:
// a record's value is either those bytes or a CheckpointFile.
import { AvaError, isAvaError } from "../../errors.js";
import { ulid } from "../../util/ids.js";
import type { FileStore } from "../types.js";

/** The folder of checkpoint files, beside `data/` (which vacuum lists) in the storage's OPFS folder. */
export const CHECKPOINT_FOLDER = "_catalog/checkpoints";

/** What IndexedDB holds for a checkpoint written as a file. */
export interface CheckpointFile {
  /** The file's name in CHECKPOINT_FOLDER. */
  file: string;
  size: number;
  /** Its first bytes (cleanup reads each checkpoint's time from them, without opening the file). */
  head: Uint8Array;
}

export function isCheckpointFile(value: unknown): value is CheckpointFile {
  return typeof (value as CheckpointFile | undefined)?.file === "string";
}

const VERSION_DIGITS = 20;

function fileName(version: number): string {
  // The version first, so that a listing sorts by it and cleanup can tell an old orphan by its name alone.
  return `${String(version).padStart(VERSION_DIGITS, "0")}-${ulid()}.jsonl`;
}

/** The version a checkpoint file was written at, from its name (undefined for a name that is not one). */
export function versionOfFile(name: string): number | undefined {
  const found = /^(\d{20})-[0-9A-Z]+\.jsonl$/.exec(name);
  return found ? Number(found[1]) : undefined;
}

export class CheckpointFiles {
  constructor(
    private readonly files: FileStore,
    private readonly headBytes: number,
  ) {}

  /** Writes `state` as a new file (flushed when this resolves) and returns the record naming it. */
  async write(version: number, state: Uint8Array): Promise<CheckpointFile> {
    // Taken first: a big write hands the bytes to the writer Worker.
    const head = state.slice(0, this.headBytes);
    const file = fileName(version);
    // `background`: in a Worker, not through a sync access handle on the committing thread.
    await this.files.write(`${CHECKPOINT_FOLDER}/${file}`, state, { background: true });
    return { file, size: state.length, head };
  }

  /** The state a record names; CATALOG_CORRUPT when its file is missing or not the size recorded. */
  async read(version: number, record: CheckpointFile): Promise<Uint8Array> {
    const path = `${CHECKPOINT_FOLDER}/${record.file}`;
    const bytes = await this.files.read(path).catch((err: unknown) => {
      if (!isAvaError(err, "NOT_FOUND")) throw err;
      throw new AvaError(
        "CATALOG_CORRUPT",
        `catalog checkpoint ${version}: its file ${path} is missing (was the origin's file storage cleared without its IndexedDB?)`,
      );
    });
    if (bytes.length !== record.size)
      throw new AvaError(
        "CATALOG_CORRUPT",
        `catalog checkpoint ${version}: its file ${path} holds ${bytes.length} bytes, ${record.size} were written`,
      );
    return bytes;
  }

  async delete(records: readonly CheckpointFile[]): Promise<void> {
    for (const { file } of records) await this.files.delete(`${CHECKPOINT_FOLDER}/${file}`);
  }

  /**
   * Deletes the files written at versions before `version` that no record names (`named`): orphans of a
   * writer killed before its record was put, or of the loser of a race for the same version. Files at
   * `version` or later may still be getting their record, so they stay. Returns the paths deleted.
   */
  async deleteOrphansBefore(version: number, named: ReadonlySet<string>): Promise<string[]> {
    const deleted: string[] = [];
    for (const { path } of await this.files.list(`${CHECKPOINT_FOLDER}/`)) {
      const name = path.slice(CHECKPOINT_FOLDER.length + 1);
      const at = versionOfFile(name);
      if (at === undefined || at >= version || named.has(name)) continue;
      await this.files.delete(path);
      deleted.push(path);
    }
    return deleted;
  }
}
