// `ava.defineNamespace({ name, tables })`: a set of table declarations with a name. `open({ storage })`
// binds it to a storage; `push()` creates what is missing (idempotently); each table is a typed property.
import { AvaError, describeValue } from "../errors.js";
import type { Storage } from "../storage/types.js";
import { checkName } from "../util/names.js";
import { type BoundTableDeclaration, bindDeclaration, type TableDeclaration } from "./declare.js";
import { type DropResult, dropNamespace } from "./drop.js";
import { push } from "./push.js";
import { type CommitListener, subscribeCommits } from "./subscribe.js";
import { Table } from "./table.js";
import { type VacuumOptions, type VacuumResult, vacuum } from "./vacuum.js";
import { type MaintenanceOptions, type MaintenanceResult, maintain } from "./maintain.js";
import {
  type AutoMaintenanceOptions,
  checkAutoMaintenance,
  type MaintenanceRunner,
  startMaintenance,
} from "./maintenance-runner.js";
import { getOrCreate } from "../util/get-or-create.js";

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
  /**
   * Creates the namespace and its missing tables, and evolves stored tables whose declaration changed
   * compatibly (one new schema version each); refuses an incompatible change with SCHEMA_MISMATCH.
   */
  push(): Promise<void>;
  /** Tables of this namespace that exist in the storage. */
  listTables(): Promise<string[]>;
  vacuum(options?: Omit<VacuumOptions, "namespace">): Promise<VacuumResult>;
  /** Calls `listener` once per snapshot committed to any table of this namespace (see Table.subscribe). */
  subscribe(listener: CommitListener): () => void;
  /**
   * Removes the namespace and (default `dropTables: true`) its tables with their data, in one commit;
   * with `dropTables: false` a namespace that still has tables is refused. push() creates it anew.
   */
  drop(options?: { dropTables?: boolean }): Promise<DropResult>;
  /**
   * Runs the maintenance that is due on this namespace's tables: compact (tiered) → expire snapshots by
   * retention → delete unreferenced files after the grace period → clean up the catalog → remove orphans.
   */
  maintain(options?: MaintenanceOptions): Promise<MaintenanceResult>;
  /** The background runner, with `maintenance: { auto: true }` on the namespace or its storage. */
  readonly maintenance: MaintenanceRunner | undefined;
}

export type Namespace<T extends Declarations = Declarations> = NamespaceHandle & Handles<T>;

export interface NamespaceDefinition<T extends Declarations> {
  readonly name: string;
  readonly tables: Bound<T>;
  open(options: { storage: Storage; maintenance?: AutoMaintenanceOptions }): Promise<Namespace<T>>;
}

/** One background runner per storage object for `maintenance` set on the storage itself. */
const storageRunners = new WeakMap<Storage, MaintenanceRunner>();

function runnerFor(
  storage: Storage,
  name: string,
  own: AutoMaintenanceOptions | undefined,
): MaintenanceRunner | undefined {
  if (own !== undefined) {
    checkAutoMaintenance(`open(${name})`, own);
    return own.auto ? startMaintenance(storage, name, own) : undefined;
  }
  const shared = storage.maintenance;
  if (!shared?.auto) return undefined;
  return getOrCreate(storageRunners, storage, () => startMaintenance(storage, undefined, shared));
}

const RESERVED = new Set([
  "name",
  "storage",
  "push",
  "listTables",
  "vacuum",
  "subscribe",
  "drop",
  "maintain",
  "maintenance",
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
    async open({ storage, maintenance }) {
      const runner = runnerFor(storage, name, maintenance);
      const handle: NamespaceHandle = {
        name,
        storage,
        push: () => push(storage, name, Object.values(bound)),
        async listTables() {
          const state = await storage.catalog.current();
          return Object.values(state.tables)
            .filter((t) => t.namespace === name)
            .map((t) => t.name);
        },
        vacuum: (options = {}) => vacuum(storage, { ...options, namespace: name }),
        subscribe: (listener) => subscribeCommits(storage, (ns) => ns === name, listener, name),
        drop: (options) => dropNamespace(storage, name, options),
        maintain: (options) => maintain(storage, name, options),
        maintenance: runner,
      };
      const handles = Object.fromEntries(
        Object.entries(bound).map(([k, decl]) => [k, new Table(storage, decl)]),
      );
      return Object.freeze(Object.assign(handle, handles)) as Namespace<T>;
    },
  };
}
