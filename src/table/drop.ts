// Dropping tables and namespaces through the commit protocol: the catalog stops referencing them in one
// commit (the only visible step), then their data files are removed. A crash between the two leaves
// orphans for vacuum(), never a table that half exists.
import { AvaError, toAvaError } from "../errors.js";
import { tableKey } from "../storage/catalog/model.js";
import type { CatalogOp, CatalogState } from "../storage/catalog/state.js";
import type { Storage } from "../storage/types.js";
import { isInlinePath } from "./inline-data.js";

export interface DropResult {
  /** Tables dropped, as "namespace.table". */
  tables: string[];
  /** Data files removed after the commit. */
  deletedFiles: number;
}

function filesOf(state: CatalogState, identifiers: readonly string[]): string[] {
  const paths = new Set<string>();
  for (const id of identifiers) {
    const table = state.tables[id]!;
    for (const path of table.history.referencedFiles()) paths.add(path);
    for (const f of table.doomed ?? []) paths.add(f.path);
  }
  return [...paths].filter((p) => !isInlinePath(p)); // inlined rows leave with the catalog entry
}

async function commitDrop(
  storage: Storage,
  state: CatalogState,
  identifiers: string[],
  ops: CatalogOp[],
  what: string,
): Promise<DropResult> {
  const files = filesOf(state, identifiers);
  try {
    await storage.catalog.commit(ops);
  } catch (err) {
    throw toAvaError(err, `dropping ${what}`);
  }
  let deletedFiles = 0;
  // A table's Iceberg metadata goes with it (a later table of the same name starts its own).
  for (const id of identifiers) {
    const [namespace, table] = id.split(".") as [string, string];
    const metadata = await storage.files.list(`data/${namespace}/${table}/metadata/`).catch(() => []);
    for (const f of metadata) await storage.files.delete(f.path).catch(() => {});
  }
  for (const path of files)
    await storage.files.delete(path).then(
      () => deletedFiles++,
      () => {}, // left for vacuum(): the catalog no longer references it
    );
  return { tables: identifiers, deletedFiles };
}

export async function dropTable(storage: Storage, namespace: string, table: string): Promise<DropResult> {
  const state = await storage.catalog.current();
  const id = tableKey(namespace, table);
  if (!state.tables[id]) throw new AvaError("NOT_FOUND", `table ${id} does not exist`);
  return commitDrop(storage, state, [id], [{ op: "dropTable", namespace, table }], `table ${id}`);
}

export async function dropNamespace(
  storage: Storage,
  namespace: string,
  { dropTables = true }: { dropTables?: boolean } = {},
): Promise<DropResult> {
  const state = await storage.catalog.current();
  if (!state.namespaces[namespace]) throw new AvaError("NOT_FOUND", `namespace ${namespace} does not exist`);
  const tables = Object.values(state.tables).filter((t) => t.namespace === namespace);
  if (tables.length > 0 && !dropTables)
    throw new AvaError(
      "INVALID_ARGUMENT",
      `namespace ${namespace} still has tables (${tables.map((t) => t.name).join(", ")}); drop({ dropTables: true }) drops them with it`,
    );
  const ops: CatalogOp[] = tables.map((t) => ({ op: "dropTable", namespace, table: t.name }));
  ops.push({ op: "dropNamespace", namespace });
  return commitDrop(
    storage,
    state,
    tables.map((t) => tableKey(namespace, t.name)),
    ops,
    `namespace ${namespace}`,
  );
}
