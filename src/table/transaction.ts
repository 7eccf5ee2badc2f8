// Writes gathered for one catalog commit. A workflow node's appends go into one: their data files are
// written as the node runs, and their snapshots commit together — in one catalog commit — when the node
// returns, or never, with the files removed, when it throws. An append_scan consumer's progress and a
// cursor's new value join the same commit: that is what makes them exactly once.
import { AvaError, toAvaError } from "../errors.js";
import type { DataFile, Snapshot } from "../storage/catalog/model.js";
import type { CatalogOp, SnapshotDraft } from "../storage/catalog/state.js";
import type { Storage } from "../storage/types.js";

/** A snapshot as known before its commit: id, time and files; parent, sequence and totals come then. */
export function provisionalSnapshot(draft: SnapshotDraft): Snapshot {
  const addedRows = draft.addedFiles.reduce((n, f) => n + f.rowCount, 0);
  const snapshot: Snapshot = {
    id: draft.id,
    parentId: null,
    sequenceNumber: 0,
    timestampMs: draft.timestampMs,
    operation: draft.operation,
    addedFiles: draft.addedFiles,
    removedFiles: [],
    addedRows,
    removedRows: 0,
    totalRows: addedRows,
  };
  if (draft.runId !== undefined) snapshot.runId = draft.runId;
  if (draft.nodeSlug !== undefined) snapshot.nodeSlug = draft.nodeSlug;
  if (draft.workflowName !== undefined) snapshot.workflowName = draft.workflowName;
  return snapshot;
}

export class Transaction {
  readonly #storage: Storage;
  readonly #ops: CatalogOp[] = [];
  /** The provisional snapshot of each commitSnapshot op, completed in place by the commit. */
  readonly #snapshots: Snapshot[] = [];
  readonly #files: DataFile[] = [];
  readonly #written: Promise<void>[] = [];
  /** Committed on their own when the writes are aborted (a failed attempt of a stream consumer). */
  readonly #onAbort: CatalogOp[] = [];
  #state: "open" | "committed" | "aborted" = "open";
  /** Run once the commit has happened, by key (a table's Iceberg metadata: once per table). */
  readonly #afterCommit = new Map<string, () => Promise<void>>();

  constructor(storage: Storage) {
    this.#storage = storage;
  }

  /** Adds one table's snapshot; `written` settles when its data file is on storage. */
  stage(namespace: string, table: string, draft: SnapshotDraft, written: Promise<void>): Snapshot {
    if (this.#state !== "open")
      throw new AvaError(
        "INVALID_ARGUMENT",
        `appending to ${namespace}.${table} after its node's writes were ${this.#state}`,
      );
    const snapshot = provisionalSnapshot(draft);
    this.#ops.push({ op: "commitSnapshot", namespace, table, snapshot: draft });
    this.#snapshots.push(snapshot);
    this.#files.push(...draft.addedFiles);
    this.#written.push(written);
    return snapshot;
  }

  /** Runs `fn` after a successful commit (once per `key`; it must not throw). */
  afterCommit(key: string, fn: () => Promise<void>): void {
    if (!this.#afterCommit.has(key)) this.#afterCommit.set(key, fn);
  }

  /** Adds a catalog op to commit with the writes (stream progress), and one to commit if they abort. */
  include(op: CatalogOp, ifAborted?: CatalogOp): void {
    this.#ops.push(op);
    if (ifAborted) this.#onAbort.push(ifAborted);
  }

  /** Commits every staged snapshot at once; on failure nothing is committed and the files are removed. */
  async commit(): Promise<void> {
    if (this.#state !== "open") return;
    this.#state = "committed";
    if (this.#ops.length === 0) return;
    try {
      const written = Promise.all(this.#written).then(() => {});
      const result = await this.#storage.catalog.commit(this.#ops, { dependsOn: written });
      result.snapshots.forEach((s, i) => {
        Object.assign(this.#snapshots[i]!, s);
      });
    } catch (err) {
      await this.#removeFiles();
      await this.#commitOnAbort();
      throw toAvaError(err, "committing the node's writes");
    }
    await Promise.all([...this.#afterCommit.values()].map((fn) => fn()));
  }

  /** Drops every staged write: nothing is committed, the data files are removed. */
  async abort(): Promise<void> {
    if (this.#state !== "open") return;
    this.#state = "aborted";
    await this.#removeFiles();
    await this.#commitOnAbort();
  }

  /** Best effort: failing to count an attempt must not hide the error that made the node fail. */
  async #commitOnAbort(): Promise<void> {
    if (this.#onAbort.length > 0) await this.#storage.catalog.commit(this.#onAbort).catch(() => {});
  }

  async #removeFiles(): Promise<void> {
    await Promise.allSettled(this.#written);
    for (const f of this.#files) await this.#storage.files.delete(f.path).catch(() => {});
  }
}
