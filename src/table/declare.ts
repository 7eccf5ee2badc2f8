// `ava.table({ schema, rowLineage })`: a table declared before any storage exists. `defineNamespace` binds
// declarations to their namespace and name, so workflow providers can name tables as `Def.tables.x`.
import type * as A from "apache-arrow";
import type { z } from "zod";
import { AvaError, describeValue } from "../errors.js";
import { type ResolvedSchema, resolveSchema, type SchemaSource } from "../schema/table-schema.js";

export type RowOf<S> = S extends z.ZodObject ? z.output<S> : Record<string, unknown>;
export type InputOf<S> = S extends z.ZodObject ? z.input<S> : Record<string, unknown>;

export interface TableOptions<S extends SchemaSource> {
  /** A zod object (model-first: appends and readModels are validated) or an Arrow schema. */
  schema: S;
  /** Add the `_ava_*` provenance columns on every append. Default true; streams and reruns need it. */
  rowLineage?: boolean;
}

export interface TableDeclaration<Row = Record<string, unknown>, In = Row> {
  readonly kind: "avalanche.table";
  readonly schema: ResolvedSchema;
  readonly rowLineage: boolean;
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

export function table<S extends z.ZodObject | A.Schema>(
  options: TableOptions<S>,
): TableDeclaration<RowOf<S>, InputOf<S>> {
  const { schema, rowLineage = true } = options ?? ({} as Partial<TableOptions<S>>);
  if (typeof rowLineage !== "boolean")
    throw new AvaError(
      "INVALID_ARGUMENT",
      `ava.table({ rowLineage }) must be a boolean, got ${describeValue(rowLineage)}`,
    );
  return { kind: "avalanche.table", schema: resolveSchema(schema as S, rowLineage), rowLineage };
}

export function bindDeclaration<Row, In>(
  decl: TableDeclaration<Row, In>,
  namespace: string,
  name: string,
): BoundTableDeclaration<Row, In> {
  return Object.freeze({ ...decl, namespace, name, identifier: `${namespace}.${name}` });
}
