// The catalog as a pure state machine: `applyOps(state, ops)` checks each op's preconditions against the
// state and returns the next state. Every catalog implementation commits by writing the ops of version N+1
// only if no one else did, so replaying a log through applyOps always rebuilds the same state.
import { AvaError } from "../../errors.js";
import type { FieldJson } from "../../schema/arrow-json.js";
import { type DataFile, type NamespaceEntry, type Snapshot, type TableEntry, tableKey } from "./model.js";

export interface SnapshotDraft {
  id: string;
  operation: Snapshot["operation"];
  timestampMs: number;
  addedFiles: DataFile[];
  /** Overwrite: every file live when the commit lands is removed. */
  removeAll?: boolean;
  runId?: string;
  nodeSlug?: string;
  workflowName?: string;
}

export type CatalogOp =
  | { op: "createNamespace"; namespace: string; timestampMs: number }
  | {
      op: "createTable";
      namespace: string;
      table: string;
      uuid: string;
      schema: FieldJson[];
      rowLineage: boolean;
      properties: Record<string, string>;
      timestampMs: number;
    }
  | {
      op: "commitSnapshot";
      namespace: string;
      table: string;
      snapshot: SnapshotDraft;
      /** When set, the commit fails with COMMIT_CONFLICT unless this is still the current snapshot. */
      expectedCurrentId?: string | null;
    };

/** A table plus what is derived from its snapshots, kept so reads need no replay. */
export interface TableState extends TableEntry {
  liveFiles: DataFile[];
}

export interface CatalogState {
  /** The log version this state reflects; 0 = empty. */
  version: number;
  namespaces: Readonly<Record<string, NamespaceEntry>>;
  tables: Readonly<Record<string, TableState>>;
}

export interface CommitResult {
  version: number;
  /** The snapshots made, in the order of the commitSnapshot ops. */
  snapshots: Snapshot[];
}

export const EMPTY_STATE: CatalogState = { version: 0, namespaces: {}, tables: {} };

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

function sumRows(files: readonly DataFile[]): number {
  return files.reduce((n, f) => n + f.rowCount, 0);
}

function applySnapshot(table: TableState, draft: SnapshotDraft): { table: TableState; snapshot: Snapshot } {
  const parent = table.snapshots.at(-1);
  const removed = draft.removeAll ? table.liveFiles : [];
  const snapshot: Snapshot = {
    id: draft.id,
    parentId: parent?.id ?? null,
    sequenceNumber: (parent?.sequenceNumber ?? 0) + 1,
    timestampMs: draft.timestampMs,
    operation: draft.operation,
    addedFiles: draft.addedFiles,
    removedFiles: removed.map((f) => f.path),
    addedRows: sumRows(draft.addedFiles),
    removedRows: sumRows(removed),
    totalRows: (parent?.totalRows ?? 0) - sumRows(removed) + sumRows(draft.addedFiles),
  };
  if (draft.runId !== undefined) snapshot.runId = draft.runId;
  if (draft.nodeSlug !== undefined) snapshot.nodeSlug = draft.nodeSlug;
  if (draft.workflowName !== undefined) snapshot.workflowName = draft.workflowName;
  const liveFiles = draft.removeAll ? [...draft.addedFiles] : [...table.liveFiles, ...draft.addedFiles];
  return { table: { ...table, snapshots: [...table.snapshots, snapshot], liveFiles }, snapshot };
}

export function applyOps(
  state: CatalogState,
  ops: readonly CatalogOp[],
): { state: CatalogState; snapshots: Snapshot[] } {
  const namespaces = { ...state.namespaces };
  const tables = { ...state.tables };
  const snapshots: Snapshot[] = [];
  for (const op of ops) {
    if (op.op === "createNamespace") {
      namespaces[op.namespace] ??= { name: op.namespace, createdMs: op.timestampMs };
      continue;
    }
    const key = tableKey(op.namespace, op.table);
    const existing = tables[key];
    if (op.op === "createTable") {
      if (!namespaces[op.namespace])
        throw new AvaError("NOT_FOUND", `namespace ${op.namespace} does not exist`);
      if (!existing) {
        const { op: _, table, timestampMs, ...rest } = op;
        tables[key] = { ...rest, name: table, createdMs: timestampMs, snapshots: [], liveFiles: [] };
      } else if (
        JSON.stringify(existing.schema) !== JSON.stringify(op.schema) ||
        existing.rowLineage !== op.rowLineage
      ) {
        throw new AvaError(
          "SCHEMA_MISMATCH",
          `table ${key} exists with a different schema or row lineage setting than its declaration (no migration is made)`,
        );
      }
      continue;
    }
    if (!existing)
      throw new AvaError("NOT_FOUND", `table ${key} does not exist; call push() on its namespace first`);
    const current = existing.snapshots.at(-1)?.id ?? null;
    if (op.expectedCurrentId !== undefined && op.expectedCurrentId !== current) {
      throw new AvaError(
        "COMMIT_CONFLICT",
        `table ${key} moved to snapshot ${current} while this commit expected ${op.expectedCurrentId}`,
      );
    }
    const applied = applySnapshot(existing, op.snapshot);
    tables[key] = applied.table;
    snapshots.push(applied.snapshot);
  }
  return { state: { version: state.version + 1, namespaces, tables }, snapshots };
}

/** What a checkpoint stores: the state without what is derived from it. */
export function serializeState(state: CatalogState): string {
  const tables = Object.fromEntries(
    Object.entries(state.tables).map(([k, { liveFiles: _, ...entry }]) => [k, entry satisfies TableEntry]),
  );
  return JSON.stringify({ version: state.version, namespaces: state.namespaces, tables });
}

export function deserializeState(text: string): CatalogState {
  const raw = JSON.parse(text) as {
    version: number;
    namespaces: Record<string, NamespaceEntry>;
    tables: Record<string, TableEntry>;
  };
  const tables = Object.fromEntries(
    Object.entries(raw.tables).map(([k, entry]) => [
      k,
      { ...entry, liveFiles: liveFilesOf(entry.snapshots) },
    ]),
  );
  return { version: raw.version, namespaces: raw.namespaces, tables };
}
