// `ava.table({ schema, rowLineage })`: a table declared before any storage exists. `defineNamespace` binds
// declarations to their namespace and name, so workflow providers can name tables as `Def.tables.x`.
import { INLINE_OFF, INLINE_ON, type InlineOptions } from "./inline-data.js";
import { checkFlushOptions, FLUSH_DEFAULTS } from "./inline-flush.js";
import type { IcebergOptions } from "../iceberg/location.js";
import { icebergSchemas } from "../iceberg/schema.js";
import { schemaToJson } from "../schema/arrow-json.js";
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
  /**
   * Schema evolution: columns renamed since the table was stored, as `{ newName: "oldName" }`. push()
   * applies each once; files written before keep being read by the column's identity. Keep entries as long
   * as some storage may still hold the old name.
   */
  renames?: Readonly<Record<string, string>>;
  /** Schema evolution: stored columns to drop on push() (their data stays readable in older snapshots' files). */
  drops?: readonly string[];
  /**
   * Small appends committed inside the catalog entry instead of as a data file (flushed to Parquet by
   * maintenance): appends of at most `maxRows` rows whose Arrow IPC is at most `maxBytes`. Default (and
   * `true`) `{ maxRows: 10, maxBytes: 16384 }`, DuckLake's 10 rows; `false`: every append writes a data file.
   * Default false on a table declared with `iceberg`: Iceberg readers need every snapshot's rows in a Parquet
   * file, so the export would write an inlined append out anyway, at more cost than the append writing it.
   */
  inline?: InlineOptions | boolean;
  /**
   * Iceberg v2 metadata written next to the table's data after each commit of this handle (append,
   * overwrite, compact), so Iceberg engines read the table: `true`, or `{ location, background }` —
   * `location` is the URI other engines read the storage's root at (see exportIceberg); the metadata is
   * written in the background by default, within 50 ms to 1 s of the commit (`background: false`: before the
   * commit returns). Default false: call exportIceberg() when wanted.
   */
  iceberg?: IcebergOptions | boolean;
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
  /** Appends inlined into the catalog (absent: the defaults; maxRows 0: none). */
  readonly inline?: Required<InlineOptions>;
  /** Set: Iceberg metadata is written after each commit (see TableOptions.iceberg). */
  readonly iceberg?: IcebergOptions;
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

export function table<S extends z.ZodObject | A.Schema>(
  options: TableOptions<S>,
): TableDeclaration<RowOf<S>, InputOf<S>> {
  const {
    schema,
    rowLineage = true,
    renames = {},
    drops = [],
    iceberg = false,
    inline = iceberg === false,
  } = options ?? ({} as Partial<TableOptions<S>>);
  if (typeof rowLineage !== "boolean")
    throw new AvaError(
      "INVALID_ARGUMENT",
      `ava.table({ rowLineage }) must be a boolean, got ${describeValue(rowLineage)}`,
    );
  if (typeof renames !== "object" || renames === null)
    throw new AvaError(
      "INVALID_ARGUMENT",
      `ava.table({ renames }) must be an object, got ${describeValue(renames)}`,
    );
  const resolved = resolveSchema(schema as S, rowLineage);
  const changes = { renames: { ...renames }, drops: Array.isArray(drops) ? [...drops] : drops };
  checkChanges(resolved, changes);
  const decl = {
    kind: "avalanche.table",
    schema: resolved,
    rowLineage,
    changes,
    inline: inlineOptions(inline),
  } as const;
  if (iceberg === false) return decl;
  if (iceberg !== true && (typeof iceberg !== "object" || iceberg === null))
    throw new AvaError(
      "INVALID_ARGUMENT",
      `ava.table({ iceberg }) must be true, false or { location, background }, got ${describeValue(iceberg)}`,
    );
  const given: IcebergOptions = iceberg === true ? {} : iceberg;
  if (given.background !== undefined && typeof given.background !== "boolean")
    throw new AvaError(
      "INVALID_ARGUMENT",
      `ava.table({ iceberg: { background } }) must be a boolean, got ${describeValue(given.background)}`,
    );
  // A column Iceberg cannot describe is refused now, not after the first commit.
  icebergSchemas({ schema: schemaToJson(resolved.user), createdMs: 0, rowLineage }, "ava.table({ iceberg })");
  return { ...decl, iceberg: { ...given, background: given.background ?? true } };
}

function inlineOptions(inline: InlineOptions | boolean): Required<InlineOptions> {
  if (inline === false) return INLINE_OFF;
  if (inline === true) return INLINE_ON;
  if (typeof inline !== "object" || inline === null)
    throw new AvaError(
      "INVALID_ARGUMENT",
      `ava.table({ inline }) must be true, false or an object, got ${describeValue(inline)}`,
    );
  const { flush, ...limits } = { ...INLINE_ON, ...inline };
  checkFlushOptions("ava.table({ inline })", flush);
  const out = { ...limits, flush: flush === false ? flush : { ...FLUSH_DEFAULTS, ...flush } };
  for (const [k, v] of Object.entries(limits))
    if (!(Number.isSafeInteger(v) && v >= 0))
      throw new AvaError(
        "INVALID_ARGUMENT",
        `ava.table({ inline: { ${k} } }) must be a whole number ≥ 0, got ${describeValue(v)}`,
      );
  return out;
}

export function bindDeclaration<Row, In>(
  decl: TableDeclaration<Row, In>,
  namespace: string,
  name: string,
): BoundTableDeclaration<Row, In> {
  return Object.freeze({ ...decl, namespace, name, identifier: `${namespace}.${name}` });
}
