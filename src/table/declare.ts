// `ava.table({ schema, rowLineage })`: a table declared before any storage exists. `defineNamespace` binds
// declarations to their namespace and name, so workflow providers can name tables as `Def.tables.x`.
import type * as A from "apache-arrow";
import type { z } from "zod";
import { AvaError } from "../errors.js";
import { type ResolvedSchema, resolveSchema, type SchemaSource } from "../schema/table-schema.js";

export type RowOf<S> = S extends z.ZodObject ? z.output<S> : Record<string, unknown>;
export type InputOf<S> = S extends z.ZodObject ? z.input<S> : Record<string, unknown>;

export interface TableOptions<S extends SchemaSource> {
  /** A zod object (model-first: appends and readModels are validated) or an Arrow schema. */
  schema: S;
  /** Add the `_ava_*` provenance columns on every append. Default true; streams and reruns need it. */
  rowLineage?: boolean;
  /**
   * Schema evolution: columns renamed since the table was stored, as `{ newName: "oldName" }`. push()
   * applies each once; files written before keep being read by the column's identity. Keep entries as long
   * as some storage may still hold the old name.
   */
  renames?: Readonly<Record<string, string>>;
  /** Schema evolution: stored columns to drop on push() (their data stays readable in older snapshots' files). */
  drops?: readonly string[];
}

/** What push() needs beyond the schema to evolve a stored table (see TableOptions). */
export interface SchemaChanges {
  renames: Readonly<Record<string, string>>;
  drops: readonly string[];
}

export interface TableDeclaration<Row = Record<string, unknown>, In = Row> {
  readonly kind: "avalanche.table";
  readonly schema: ResolvedSchema;
  readonly rowLineage: boolean;
  readonly changes: SchemaChanges;
  /** Type-only: the row and append-input types. */
  readonly __types?: { row: Row; input: In };
}

export interface BoundTableDeclaration<Row = Record<string, unknown>, In = Row>
  extends TableDeclaration<Row, In> {
  readonly namespace: string;
  readonly name: string;
  /** "namespace.table" */
  readonly identifier: string;
}

/** Whether `v` is a table of a namespace definition (`Def.tables.x`): a declaration bound to a namespace. */
export function isBoundTable(v: unknown): v is BoundTableDeclaration {
  return (v as TableDeclaration | null)?.kind === "avalanche.table" && "identifier" in (v as object);
}

/** Renames and drops must name columns unambiguously: a rename's target is declared, its source and drops are not. */
function checkChanges(resolved: ResolvedSchema, { renames, drops }: SchemaChanges): void {
  const declared = new Set(resolved.user.fields.map((f) => f.name));
  const bad = (what: string) => new AvaError("INVALID_ARGUMENT", `ava.table: ${what}`);
  const sources = new Set<string>();
  for (const [to, from] of Object.entries(renames)) {
    if (typeof from !== "string") throw bad(`renames.${to} must be the old column name, a string`);
    if (!declared.has(to)) throw bad(`renames.${to}: "${to}" is not a column of the schema`);
    if (declared.has(from)) throw bad(`renames.${to}: "${from}" is still a column of the schema`);
    if (sources.has(from)) throw bad(`renames: "${from}" is renamed twice`);
    sources.add(from);
  }
  if (!Array.isArray(drops)) throw bad("drops must be an array of column names");
  for (const name of drops) {
    if (declared.has(name)) throw bad(`drops: "${name}" is still a column of the schema`);
    if (sources.has(name)) throw bad(`drops: "${name}" is also the source of a rename`);
  }
}

export function table<S extends z.ZodObject | A.Schema>({
  schema,
  rowLineage = true,
  renames = {},
  drops = [],
}: TableOptions<S>): TableDeclaration<RowOf<S>, InputOf<S>> {
  const resolved = resolveSchema(schema, rowLineage);
  const changes = { renames: { ...renames }, drops: [...drops] };
  checkChanges(resolved, changes);
  return { kind: "avalanche.table", schema: resolved, rowLineage, changes };
}

export function bindDeclaration<Row, In>(
  decl: TableDeclaration<Row, In>,
  namespace: string,
  name: string,
): BoundTableDeclaration<Row, In> {
  return Object.freeze({ ...decl, namespace, name, identifier: `${namespace}.${name}` });
}
