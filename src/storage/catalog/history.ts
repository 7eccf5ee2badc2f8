// A table's snapshots, oldest first. Opening a table needs only its current snapshot, so a history read
// from a checkpoint keeps the rest unparsed until something asks for it (history(), a scan, a commit to
// that table) — the split Iceberg makes between its snapshot log and its manifests. Snapshots removed by
// retention (expireSnapshots) leave a base: the live files as of the oldest kept snapshot, from which the
// later kept snapshots replay (files only expired snapshots read are then referenced by nothing).
import { AppendOnly } from "./append-only.js";
import type { DataFile, Snapshot } from "./model.js";

/** What expired snapshots leave behind: where the retained history starts. */
export interface HistoryBase {
  /** Sequence number of the newest expired snapshot (every one up to it is gone). */
  throughSequence: number;
  /** Its commit time: a snapshot id (a ULID) minted no later than this may have been expired. */
  lastTimestampMs: number;
  /** The files live at the oldest kept snapshot, in scan order. */
  files: DataFile[];
}

/**
 * The live files after `snapshot`, given those before it. Files a compaction replaced give way to its
 * merged file at the position of the first of them, so scans keep commit order (and `limit` its meaning).
 */
export function applySnapshotFiles(live: readonly DataFile[], snapshot: Snapshot): DataFile[] {
  if (snapshot.removedFiles.length === 0) return [...live, ...snapshot.addedFiles];
  const removed = new Set(snapshot.removedFiles);
  const out: DataFile[] = [];
  let placed = false;
  for (const f of live) {
    if (!removed.has(f.path)) out.push(f);
    else if (!placed && snapshot.operation === "compact") {
      out.push(...snapshot.addedFiles);
      placed = true;
    }
  }
  if (!placed) out.push(...snapshot.addedFiles);
  return out;
}

/**
 * The live files at the end of a list of snapshots (replayed from `base`, the files live before them).
 * Appends go onto one array: a fresh copy per snapshot made this O(n²), and the first look at the live
 * files of a history read from a checkpoint (100,000 appends, never maintained) took 75 s.
 */
export function liveFilesOf(snapshots: readonly Snapshot[], base: readonly DataFile[] = []): DataFile[] {
  let live: DataFile[] = [...base]; // this function's own array until it is returned
  for (const s of snapshots) {
    if (s.removedFiles.length > 0) live = applySnapshotFiles(live, s);
    else for (const f of s.addedFiles) live.push(f);
  }
  return live;
}

export interface InlinedLive {
  rows: number;
  oldest: string | undefined;
}

export class TableHistory {
  /** Every kept snapshot, once parsed. */
  #all: AppendOnly<Snapshot> | undefined;
  /** For a history not yet parsed: the checkpoint's loader, and the snapshots committed after it. */
  #load: (() => readonly Snapshot[]) | undefined;
  #appended: AppendOnly<Snapshot> = AppendOnly.of([]);
  #live: AppendOnly<DataFile> | undefined;
  #inlined: InlinedLive | undefined;
  /** The newest snapshot; undefined before the first commit. */
  readonly current: Snapshot | undefined;
  /** How many snapshots are kept (expired ones are not counted). */
  readonly length: number;
  /** Set once snapshots have expired. */
  readonly base: HistoryBase | undefined;

  private constructor(current: Snapshot | undefined, length: number, base: HistoryBase | undefined) {
    this.current = current;
    this.length = length;
    this.base = base;
  }

  static empty(): TableHistory {
    const h = new TableHistory(undefined, 0, undefined);
    h.#all = AppendOnly.of([]);
    h.#live = AppendOnly.of([]);
    return h;
  }

  /** A history whose snapshots `load` parses on first use (it is called at most once). */
  static lazy(
    current: Snapshot | undefined,
    length: number,
    load: () => Snapshot[],
    base?: HistoryBase,
  ): TableHistory {
    const h = new TableHistory(current, length, base);
    let loaded: readonly Snapshot[] | undefined;
    h.#load = () => {
      loaded ??= load();
      return loaded;
    };
    return h;
  }

  /** The snapshots, parsing them on first use (the loader's array is shared, so it is copied, not grown). */
  #snapshots(): AppendOnly<Snapshot> {
    this.#all ??= AppendOnly.of([...this.#load!(), ...this.#appended.slice(0)]);
    return this.#all;
  }

  get snapshots(): readonly Snapshot[] {
    return this.#snapshots().toArray();
  }

  get liveFiles(): readonly DataFile[] {
    this.#live ??= AppendOnly.of(this.liveFilesAt(this.length - 1));
    return this.#live.toArray();
  }

  /**
   * The snapshot committed with this idempotency key, if any. Newest first: a re-sent batch is almost
   * always recent, so the search usually stops within a few snapshots.
   */
  withIdempotencyKey(key: string): Snapshot | undefined {
    const all = this.#snapshots();
    for (let i = all.length - 1; i >= 0; i--) if (all.at(i)!.idempotencyKey === key) return all.at(i);
    return undefined;
  }

  /** The live files as of the kept snapshot at `index` of `snapshots` (time travel). */
  liveFilesAt(index: number): DataFile[] {
    const all = this.#snapshots();
    if (!this.base) return liveFilesOf(all.slice(0, index + 1));
    return liveFilesOf(all.slice(1, index + 1), this.base.files);
  }

  /** Every data file a kept snapshot can read: the base's and those later kept snapshots added. */
  referencedFiles(): Set<string> {
    const paths = new Set<string>();
    const add = (f: DataFile) => {
      paths.add(f.path);
      // A flushed inlined file is read from its slice of the flushed file: that file is referenced too.
      if (f.flushedTo) paths.add(f.flushedTo.path);
    };
    for (const f of this.base?.files ?? []) add(f);
    for (const s of this.#snapshots().slice(this.base ? 1 : 0)) for (const f of s.addedFiles) add(f);
    return paths;
  }

  /**
   * A new history with one more snapshot (this one is left unchanged, and unparsed if it was). O(1) for
   * the usual commit, an append to the newest history (see AppendOnly).
   */
  append(snapshot: Snapshot, removeAll: boolean): TableHistory {
    const next = new TableHistory(snapshot, this.length + 1, this.base);
    if (this.#all) next.#all = this.#all.append(snapshot);
    else {
      next.#load = this.#load;
      next.#appended = this.#appended.append(snapshot);
    }
    if (this.#inlined && !removeAll && snapshot.removedFiles.length === 0) {
      let { rows, oldest } = this.#inlined;
      for (const f of snapshot.addedFiles)
        if (f.inline !== undefined) {
          rows += f.rowCount;
          if (oldest === undefined || f.path < oldest) oldest = f.path;
        }
      next.#inlined = { rows, oldest };
    }
    if (removeAll) next.#live = AppendOnly.of([...snapshot.addedFiles]);
    else if (this.#live)
      next.#live =
        snapshot.removedFiles.length === 0
          ? this.#live.append(...snapshot.addedFiles)
          : AppendOnly.of(applySnapshotFiles(this.#live.slice(0), snapshot));
    return next;
  }

  /**
   * Live inlined rows and the path of the oldest live inlined file (named by its snapshot's ULID): what
   * decides whether a flush is due. Kept up to date by append() for the usual commit, so checking after
   * every commit costs O(1) rather than a walk over the live files.
   */
  inlined(): InlinedLive {
    if (this.#inlined) return this.#inlined;
    let rows = 0;
    let oldest: string | undefined;
    for (const f of this.liveFiles)
      if (f.inline !== undefined) {
        rows += f.rowCount;
        if (oldest === undefined || f.path < oldest) oldest = f.path;
      }
    this.#inlined = { rows, oldest };
    return this.#inlined;
  }

  /**
   * This history with inlined files replaced by what `flushed` maps them to (their slices of the file a
   * flush wrote) in every kept snapshot and the base. The files were added by recent snapshots (those since
   * the previous flush), so the walk goes newest first and usually stops early.
   */
  withFlushed(flushed: ReadonlyMap<string, DataFile>): TableHistory {
    if (flushed.size === 0) return this;
    const swap = (files: DataFile[]) =>
      files.some((f) => flushed.has(f.path)) ? files.map((f) => flushed.get(f.path) ?? f) : files;
    const all = this.#snapshots().slice(0);
    let left = flushed.size;
    for (let i = all.length - 1; i >= 0 && left > 0; i--) {
      const s = all[i]!;
      const addedFiles = swap(s.addedFiles);
      if (addedFiles === s.addedFiles) continue;
      left -= addedFiles.filter((f) => f.flushedTo && flushed.get(f.path) === f).length;
      all[i] = { ...s, addedFiles };
    }
    const base = this.base && { ...this.base, files: swap(this.base.files) };
    const next = new TableHistory(all.at(-1) ?? this.current, this.length, base);
    next.#all = AppendOnly.of(all);
    next.#live = this.#live;
    return next;
  }

  /** A new history without the snapshots up to sequence `through` (they must not include the current one). */
  expire(through: number): TableHistory {
    const all = this.#snapshots().slice(0);
    const cut = all.findIndex((s) => s.sequenceNumber > through);
    const gone = all.slice(0, cut);
    const last = gone.at(-1);
    if (!last) return this;
    const base: HistoryBase = {
      throughSequence: last.sequenceNumber,
      lastTimestampMs: Math.max(last.timestampMs, this.base?.lastTimestampMs ?? 0),
      files: this.liveFilesAt(cut),
    };
    const next = new TableHistory(this.current, all.length - gone.length, base);
    next.#all = AppendOnly.of(all.slice(cut));
    next.#live = this.#live;
    return next;
  }
}
