// A table's snapshots, oldest first. Opening a table needs only its current snapshot, so a history read
// from a checkpoint keeps the rest unparsed until something asks for it (history(), a scan, a commit to
// that table) — the split Iceberg makes between its snapshot log and its manifests.
import type { DataFile, Snapshot } from "./model.js";

/** The live files at the end of a list of snapshots. */
export function liveFilesOf(snapshots: readonly Snapshot[]): DataFile[] {
  let live = new Map<string, DataFile>();
  for (const s of snapshots) {
    if (s.removedFiles.length > 0) {
      const removed = new Set(s.removedFiles);
      live = new Map([...live].filter(([path]) => !removed.has(path)));
    }
    for (const f of s.addedFiles) live.set(f.path, f);
  }
  return [...live.values()];
}

export class TableHistory {
  #snapshots: readonly Snapshot[] | undefined;
  /** For a history not yet parsed: the checkpoint's loader, and the snapshots committed after it. */
  #load: (() => readonly Snapshot[]) | undefined;
  #appended: readonly Snapshot[] = [];
  #liveFiles: readonly DataFile[] | undefined;
  /** The newest snapshot; undefined before the first commit. */
  readonly current: Snapshot | undefined;
  /** How many snapshots there are. */
  readonly length: number;

  private constructor(current: Snapshot | undefined, length: number) {
    this.current = current;
    this.length = length;
  }

  static empty(): TableHistory {
    const h = new TableHistory(undefined, 0);
    h.#snapshots = [];
    h.#liveFiles = [];
    return h;
  }

  /** A history whose snapshots `load` parses on first use (it is called at most once). */
  static lazy(current: Snapshot | undefined, length: number, load: () => Snapshot[]): TableHistory {
    const h = new TableHistory(current, length);
    let loaded: readonly Snapshot[] | undefined;
    h.#load = () => {
      loaded ??= load();
      return loaded;
    };
    return h;
  }

  get snapshots(): readonly Snapshot[] {
    this.#snapshots ??= [...this.#load!(), ...this.#appended];
    return this.#snapshots;
  }

  get liveFiles(): readonly DataFile[] {
    this.#liveFiles ??= liveFilesOf(this.snapshots);
    return this.#liveFiles;
  }

  /**
   * The snapshot committed with this idempotency key, if any. Newest first: a re-sent batch is almost
   * always recent, so the search usually stops within a few snapshots.
   */
  withIdempotencyKey(key: string): Snapshot | undefined {
    const all = this.snapshots;
    for (let i = all.length - 1; i >= 0; i--) if (all[i]!.idempotencyKey === key) return all[i];
    return undefined;
  }

  /** A new history with one more snapshot (this one is left unchanged, and unparsed if it was). */
  append(snapshot: Snapshot, removeAll: boolean): TableHistory {
    const next = new TableHistory(snapshot, this.length + 1);
    if (this.#snapshots) {
      next.#snapshots = [...this.#snapshots, snapshot];
      if (this.#liveFiles || removeAll) {
        next.#liveFiles = removeAll
          ? [...snapshot.addedFiles]
          : [...this.#liveFiles!, ...snapshot.addedFiles];
      }
    } else {
      next.#load = this.#load;
      next.#appended = [...this.#appended, snapshot];
    }
    return next;
  }
}
