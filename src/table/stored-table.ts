// Tables as the catalog stores them, without their declarations: the command line and the server read any
// storage, whose schemas they learn from the catalog (the current user schema and the row lineage setting).
import { schemaFromJson } from "../schema/arrow-json.js";
import type { CatalogState, TableState } from "../storage/catalog/state.js";
import type { Storage } from "../storage/types.js";
import { AvaError } from "../errors.js";
import { bindDeclaration, table } from "./declare.js";
import { Table } from "./table.js";

/** A Table handle over the stored table `entry`, reading with its current schema. */
export function storedTable(storage: Storage, entry: TableState): Table {
  const decl = table({ schema: schemaFromJson(entry.schema), rowLineage: entry.rowLineage });
  return new Table(storage, bindDeclaration(decl, entry.namespace, entry.name));
}

/** "ns.table" -> the table's catalog entry; NOT_FOUND naming what there is. */
export function findTable(state: CatalogState, identifier: string): TableState {
  const entry = state.tables[identifier];
  if (entry) return entry;
  if (!/^[^.]+\.[^.]+$/.test(identifier))
    throw new AvaError(
      "INVALID_ARGUMENT",
      `a table is named NAMESPACE.TABLE, got ${JSON.stringify(identifier)}`,
    );
  const known = Object.keys(state.tables).sort();
  throw new AvaError(
    "NOT_FOUND",
    `table ${identifier} does not exist${known.length > 0 ? ` (tables: ${known.slice(0, 20).join(", ")})` : " (the storage has no tables)"}`,
  );
}

/**
 * Every table of the storage for SQL, by view name: "ns.table" always, and the bare table name too when no
 * other namespace has a table of that name.
 */
export function storedTables(storage: Storage, state: CatalogState): Map<string, Table> {
  const entries = Object.values(state.tables);
  const count = new Map<string, number>();
  for (const e of entries) count.set(e.name, (count.get(e.name) ?? 0) + 1);
  const tables = new Map<string, Table>();
  for (const e of entries) {
    const t = storedTable(storage, e);
    tables.set(t.identifier, t);
    if (count.get(e.name) === 1) tables.set(e.name, t);
  }
  return tables;
}
