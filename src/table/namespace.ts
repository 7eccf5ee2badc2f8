// `ava.defineNamespace({ name, tables })`: a set of table declarations with a name. `open({ storage })`
// binds it to a storage; `push()` creates what is missing (idempotently); each table is a typed property.
import { AvaError, describeValue } from "../errors.js";
import { schemaToJson } from "../schema/arrow-json.js";
import { applyOps, type CatalogOp } from "../storage/catalog/state.js";
import type { Storage } from "../storage/types.js";
import { checkName } from "../util/names.js";
import { ulid } from "../util/ids.js";
import { type BoundTableDeclaration, bindDeclaration, type TableDeclaration } from "./declare.js";
import { Table } from "./table.js";
import { type VacuumOptions, type VacuumResult, vacuum } from "./vacuum.js";

// biome-ignore lint/suspicious/noExplicitAny: declarations of any row type
type AnyDeclaration = TableDeclaration<any, any>;
type Declarations = Record<string, AnyDeclaration>;

type Bound<T extends Declarations> = {
  readonly [K in keyof T]: T[K] extends TableDeclaration<infer R, infer I>
    ? BoundTableDeclaration<R, I>
    : never;
};
type Handles<T extends Declarations> = {
  readonly [K in keyof T]: T[K] extends TableDeclaration<infer R, infer I> ? Table<R, I> : never;
};

export interface NamespaceHandle {
  readonly name: string;
  readonly storage: Storage;
  /** Creates the namespace and its missing tables; refuses a stored table whose schema differs. */
  push(): Promise<void>;
  /** Tables of this namespace that exist in the storage. */
  listTables(): Promise<string[]>;
  vacuum(options?: Omit<VacuumOptions, "namespace">): Promise<VacuumResult>;
}

export type Namespace<T extends Declarations = Declarations> = NamespaceHandle & Handles<T>;

export interface NamespaceDefinition<T extends Declarations> {
  readonly name: string;
  readonly tables: Bound<T>;
  open(options: { storage: Storage }): Promise<Namespace<T>>;
}

const RESERVED = new Set([
  "name",
  "storage",
  "push",
  "listTables",
  "vacuum",
  "then",
  "constructor",
  "toString",
]);

export function defineNamespace<T extends Declarations>({
  name,
  tables,
}: {
  name: string;
  tables: T;
}): NamespaceDefinition<T> {
  checkName("namespace", name);
  if (typeof tables !== "object" || tables === null || Array.isArray(tables))
    throw new AvaError(
      "INVALID_ARGUMENT",
      `defineNamespace({ tables }) needs an object of ava.table(...) declarations, got ${describeValue(tables)}`,
    );
  const bound: Record<string, BoundTableDeclaration> = {};
  for (const [tableName, decl] of Object.entries(tables)) {
    checkName("table", tableName);
    if (RESERVED.has(tableName))
      throw new AvaError("INVALID_NAME", `table name "${tableName}" is reserved by the namespace API`);
    if (decl?.kind !== "avalanche.table")
      throw new AvaError("INVALID_ARGUMENT", `tables.${tableName} is not an ava.table(...) declaration`);
    bound[tableName] = bindDeclaration(decl, name, tableName);
  }
  const boundTables = Object.freeze(bound) as Bound<T>;

  return {
    name,
    tables: boundTables,
    async open({ storage }) {
      const handle: NamespaceHandle = {
        name,
        storage,
        async push() {
          const now = Date.now();
          const ops: CatalogOp[] = [{ op: "createNamespace", namespace: name, timestampMs: now }];
          for (const decl of Object.values(bound)) {
            ops.push({
              op: "createTable",
              namespace: name,
              table: decl.name,
              uuid: ulid(),
              schema: schemaToJson(decl.schema.user),
              rowLineage: decl.rowLineage,
              properties: {},
              timestampMs: now,
            });
          }
          // Check every declaration against what is stored (throws on a schema that differs), and commit
          // only when something is missing, so that an idempotent push does not grow the log.
          const state = await storage.catalog.current();
          applyOps(state, ops);
          const missing =
            !state.namespaces[name] || Object.values(bound).some((d) => !state.tables[d.identifier]);
          if (missing) await storage.catalog.commit(ops);
        },
        async listTables() {
          const state = await storage.catalog.current();
          return Object.values(state.tables)
            .filter((t) => t.namespace === name)
            .map((t) => t.name);
        },
        vacuum: (options = {}) => vacuum(storage, { ...options, namespace: name }),
      };
      const handles = Object.fromEntries(
        Object.entries(bound).map(([k, decl]) => [k, new Table(storage, decl)]),
      );
      return Object.freeze(Object.assign(handle, handles)) as Namespace<T>;
    },
  };
}
