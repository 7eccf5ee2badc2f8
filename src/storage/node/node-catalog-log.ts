// The catalog log as files: `_catalog/log/<version>.json`. An entry is staged — written and fsynced as a
// record in this writer's segment (catalog-segments.ts), or, when large, in a temp file of its own — and
// published by hard-linking the segment or the file to its version's name: link() fails if the name
// exists (so one writer wins each version, across processes) and the entry appears complete or not at all,
// even if the writer is killed. A writer that loses a version stages the entry again for the next one
// (a record names its version) or links the same temp file to it.
import { randomUUID } from "node:crypto";
import { linkSync, unlinkSync } from "node:fs";
import { mkdir, open, readdir, readFile, rename, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { AvaError } from "../../errors.js";
import { type CatalogLog, logGap, type StagedEntry } from "../catalog/log-catalog.js";
import { watchFolder } from "./catalog-watch.js";
import {
  isSegment,
  LARGEST_RECORD_BYTES,
  recordBytes,
  SEGMENT_IDLE_MS,
  type SegmentRecord,
  SegmentReader,
  SegmentWriter,
} from "./catalog-segments.js";
import { closeAsync, fdatasyncAsync, openAsync, readAsync, readRestAsync } from "./fd-async.js";
import { ioError, writeSmallNewFile } from "./paths.js";

/** How much of an entry's file is read first: a whole small JSON entry, or a segment's header. */
const HEAD_BYTES = 4096;

const pad = (v: number) => String(v).padStart(20, "0");

/** The versions named by the `<20 digits>.<extension>` files of `dir`; none when it does not exist yet. */
async function versionsIn(dir: string, extension: string, what: string): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return [];
    throw ioError(err, what);
  }
  const file = new RegExp(`^\\d{20}\\.${extension}$`);
  return names.filter((n) => file.test(n)).map((n) => Number(n.slice(0, 20)));
}

export class NodeCatalogLog implements CatalogLog {
  readonly #logDir: string;
  readonly #checkpointDir: string;
  readonly #tmpDir: string;
  readonly #walDir: string;
  readonly #segments: SegmentWriter;
  readonly #segmentReader = new SegmentReader();
  #ready: Promise<unknown> | undefined;
  #listed = false;

  constructor(
    root: string,
    private readonly fsync: boolean,
    private readonly pollMs = 1000,
    segmentIdleMs = SEGMENT_IDLE_MS,
  ) {
    this.#logDir = join(root, "_catalog", "log");
    this.#checkpointDir = join(root, "_catalog", "checkpoints");
    this.#tmpDir = join(root, "_catalog", "tmp");
    this.#walDir = join(root, "_catalog", "wal");
    this.#segments = new SegmentWriter(this.#walDir, fsync, segmentIdleMs);
  }

  #dirs(): Promise<unknown> {
    this.#ready ??= Promise.all(
      [this.#logDir, this.#checkpointDir, this.#tmpDir, this.#walDir].map((d) =>
        mkdir(d, { recursive: true }),
      ),
    );
    return this.#ready;
  }

  async readFrom(version: number, held?: (version: number) => boolean): Promise<string[]> {
    const entries: string[] = [];
    // Probing the next name is cheaper than listing a folder of thousands of entries.
    for (let v = version; ; v++) {
      if (held?.(v)) return entries;
      const text = await this.#read(v);
      if (text !== undefined) {
        entries.push(text);
        continue;
      }
      const catchingUp = this.#listed; // the first read of an instance opens the log; later ones catch up
      const later = await this.#laterEntry(v);
      if (later === undefined) {
        // Nothing new — unless cleanup removed the entry this reader stands on (it fell a grace period
        // behind): then the entries it lacks are gone too, and it must reopen from the checkpoint.
        if (catchingUp && entries.length === 0 && v > 1 && (await this.#read(v - 1)) === undefined)
          throw new AvaError(
            "CATALOG_CORRUPT",
            `catalog entry ${v - 1} was removed by cleanup: reopen from the newest checkpoint`,
          );
        return entries;
      }
      // A writer may have published v (and v + 1) since the probe: only an entry still missing is a gap.
      const again = await this.#read(v);
      if (again === undefined) throw logGap(v, later);
      entries.push(again);
    }
  }

  entryName(version: number): string {
    return `_catalog/log/${pad(version)}.json`;
  }

  #entryPath(version: number): string {
    return join(this.#logDir, `${pad(version)}.json`);
  }

  /** Entry `v`: a JSON file of its own, or a link to the segment holding its record. */
  async #read(v: number): Promise<string | undefined> {
    let fd: number;
    try {
      fd = await openAsync(this.#entryPath(v), "r");
    } catch (err) {
      if ((err as { code?: string }).code === "ENOENT") return undefined;
      throw ioError(err, `reading catalog entry ${v}`);
    }
    try {
      const head = Buffer.allocUnsafe(HEAD_BYTES);
      // From the file's position, so that readRestAsync below goes on where this stopped.
      const { bytesRead } = await readAsync(fd, head, 0, HEAD_BYTES, null);
      const first = head.subarray(0, bytesRead);
      if (isSegment(first)) return await this.#segmentReader.entry(fd, first, v, this.entryName(v));
      if (bytesRead < HEAD_BYTES) return first.toString("utf8");
      return Buffer.concat([first, await readRestAsync(fd)]).toString("utf8");
    } catch (err) {
      throw ioError(err, `reading catalog entry ${v}`);
    } finally {
      await closeAsync(fd).catch(() => {});
    }
  }

  /**
   * An entry past `missing`, if any. The first look of this instance lists the folder (finding any hole);
   * later ones probe the next name only (finding a hole that opened since), which keeps catch-ups cheap.
   */
  async #laterEntry(missing: number): Promise<number | undefined> {
    if (this.#listed) {
      return (await this.#read(missing + 1)) === undefined ? undefined : missing + 1;
    }
    const versions = await versionsIn(this.#logDir, "json", "listing the catalog log");
    this.#listed = true;
    let later: number | undefined;
    for (const v of versions) if (v > missing && (later === undefined || v < later)) later = v;
    return later;
  }

  async #writeTemp(text: string | Uint8Array): Promise<string> {
    await this.#dirs();
    const tmp = join(this.#tmpDir, `${randomUUID()}.tmp`);
    try {
      // The thread pool's fdatasync: these are checkpoints (written in the background, up to megabytes) and
      // entries too large for a segment, not worth holding the event loop for.
      await writeSmallNewFile(tmp, text, this.fsync ? fdatasyncAsync : undefined);
    } catch (err) {
      // A full disk fails the write after the file was created: leave no empty temp file behind.
      await unlink(tmp).catch(() => {});
      throw err;
    }
    return tmp;
  }

  async stage(entry: string, version?: number): Promise<StagedEntry> {
    if (version !== undefined && recordBytes(entry) <= LARGEST_RECORD_BYTES)
      return this.#stageRecord(entry, version);
    let tmp: string;
    try {
      tmp = await this.#writeTemp(entry);
    } catch (err) {
      throw ioError(err, "staging a catalog entry");
    }
    // link and unlink are synchronous for the reason writeSmallNewFile gives: microseconds each on a local
    // disk, against a thread-pool trip apiece on every commit. Nothing waits for the unlink (the log
    // catalog does not await a discard), so it runs from setImmediate: after the commit has returned, and
    // for a sequential appender while its next commit waits for its fdatasync.
    return {
      publish: async (version) => {
        try {
          linkSync(tmp, this.#entryPath(version));
          return true;
        } catch (err) {
          if ((err as { code?: string }).code === "EEXIST") return false;
          throw ioError(err, `writing catalog entry ${version}`);
        }
      },
      discard: async () => {
        setImmediate(() => {
          try {
            unlinkSync(tmp);
          } catch {
            // already gone (vacuum removes what a crash leaves behind)
          }
        });
      },
    };
  }

  /** `entry` as a record in this writer's segment, staged for `version` (and again for another, if need be). */
  async #stageRecord(entry: string, version: number): Promise<StagedEntry> {
    await this.#dirs();
    const append = async (v: number) => {
      try {
        return await this.#segments.append(v, entry);
      } catch (err) {
        throw ioError(err, "staging a catalog entry");
      }
    };
    let record: SegmentRecord = await append(version);
    const restage = async (v: number) => {
      const old = record;
      record = await append(v);
      old.release();
    };
    return {
      publish: async (v) => {
        if (record.version !== v) await restage(v);
        for (let attempt = 0; ; attempt++) {
          try {
            linkSync(record.path, this.#entryPath(v));
            return true;
          } catch (err) {
            const code = (err as { code?: string }).code;
            if (code === "EEXIST") return false;
            record.retire();
            // A segment whose name vacuum removed (its writer was idle past the grace period), or that has
            // as many names as the file system allows: the entry is written anew, into a new segment.
            if (attempt === 0 && (code === "ENOENT" || code === "EMLINK")) {
              await restage(v);
              continue;
            }
            throw ioError(err, `writing catalog entry ${v}`);
          }
        }
      },
      discard: async () => record.release(),
    };
  }

  async latestCheckpoint(): Promise<{ version: number; state: Uint8Array } | undefined> {
    // A writer may thin out checkpoints between the listing and the read (never the newest few): then
    // the listing is out of date, and the next one names a newer checkpoint.
    for (let attempt = 0; ; attempt++) {
      const versions = await versionsIn(this.#checkpointDir, "jsonl", "listing catalog checkpoints");
      if (versions.length === 0) return undefined;
      const version = Math.max(...versions);
      try {
        return { version, state: await readFile(join(this.#checkpointDir, `${pad(version)}.jsonl`)) };
      } catch (err) {
        if ((err as { code?: string }).code !== "ENOENT" || attempt >= 10)
          throw ioError(err, `reading catalog checkpoint ${version}`);
      }
    }
  }

  async writeCheckpoint(version: number, state: Uint8Array): Promise<void> {
    try {
      const tmp = await this.#writeTemp(state);
      await rename(tmp, join(this.#checkpointDir, `${pad(version)}.jsonl`)); // same content whoever wins
    } catch (err) {
      throw ioError(err, `writing catalog checkpoint ${version}`);
    }
  }

  watch(onChange: () => void): () => void {
    return watchFolder({ folder: this.#logDir, ready: this.#dirs(), pollMs: this.pollMs }, onChange);
  }

  async checkpointHeads(bytes: number): Promise<{ version: number; head: Uint8Array }[]> {
    const out: { version: number; head: Uint8Array }[] = [];
    for (const version of await versionsIn(this.#checkpointDir, "jsonl", "listing catalog checkpoints")) {
      const file = await open(join(this.#checkpointDir, `${pad(version)}.jsonl`), "r").catch(() => undefined);
      if (!file) continue; // removed meanwhile
      try {
        const head = new Uint8Array(bytes);
        const { bytesRead } = await file.read(head, 0, bytes, 0);
        out.push({ version, head: head.subarray(0, bytesRead) });
      } finally {
        await file.close();
      }
    }
    return out;
  }

  async removeCheckpoints(versions: readonly number[]): Promise<void> {
    for (const v of versions) await unlink(join(this.#checkpointDir, `${pad(v)}.jsonl`)).catch(() => {});
  }

  async removeBefore(version: number): Promise<string[]> {
    const removed: string[] = [];
    // Checkpoints first: a checkpoint must never outlive the entry it was written at (open refuses that).
    for (const v of await versionsIn(this.#checkpointDir, "jsonl", "listing catalog checkpoints")) {
      if (v >= version) continue;
      await unlink(join(this.#checkpointDir, `${pad(v)}.jsonl`)).catch(() => {});
      removed.push(`_catalog/checkpoints/${pad(v)}.jsonl`);
    }
    // Oldest first, so a crash midway leaves a log that starts later, never one with a hole.
    const entries = (await versionsIn(this.#logDir, "json", "listing the catalog log")).sort((a, b) => a - b);
    for (const v of entries) {
      if (v >= version) break;
      await unlink(this.#entryPath(v)).catch(() => {});
      removed.push(this.entryName(v));
    }
    return removed;
  }

  /**
   * Removes what writers left behind: temp files, and the names of segments no writer has written to for
   * the grace period (a writer that was killed, or is idle: one that wakes up stages its entry anew). A
   * segment's records live on through their entries' links.
   */
  async vacuum(olderThanMs: number): Promise<string[]> {
    const removed: string[] = [];
    const inUse = new Set(this.#segments.inUse());
    for (const [dir, folder] of [
      [this.#tmpDir, "tmp"],
      [this.#walDir, "wal"],
    ] as const) {
      const names = await readdir(dir).catch(() => [] as string[]);
      for (const name of names) {
        const full = join(dir, name);
        if (inUse.has(full)) continue;
        const s = await stat(full).catch(() => undefined);
        if (s && Date.now() - s.mtimeMs >= olderThanMs) {
          await unlink(full).catch(() => {});
          removed.push(`_catalog/${folder}/${name}`);
        }
      }
    }
    return removed;
  }
}
