// A table's schema versions as Iceberg schemas: each column keeps the field id the catalog gave it (so a
// renamed column is the same Iceberg field), nested fields and the provenance columns get ids by a fixed
// rule, and Arrow types map to Iceberg v2 types by a lookup with an explicit refusal for the rest. Files
// written without Parquet field ids are read through `schema.name-mapping.default`.
import { AvaError } from "../errors.js";
import type { FieldJson, TypeJson } from "../schema/arrow-json.js";
import { PROVENANCE_FIELDS } from "../schema/provenance.js";
import { type SchemaVersion, schemaVersionsOf, type TableMeta } from "../storage/catalog/model.js";

export type IcebergType =
  | string
  | { type: "struct"; fields: IcebergField[] }
  | { type: "list"; "element-id": number; element: IcebergType; "element-required": boolean };

export interface IcebergField {
  id: number;
  name: string;
  required: boolean;
  type: IcebergType;
}

export interface IcebergSchema {
  type: "struct";
  "schema-id": number;
  fields: IcebergField[];
}

/** Name mapping (table spec, "Column Projection"): the names a field id has in files without ids. */
export interface NameMapping {
  "field-id": number;
  names: string[];
  fields?: NameMapping[];
}

/**
 * Nested fields of top-level column `k` get ids `k * NESTED_STRIDE + n` (n counts them depth first), so
 * they never collide with top-level ids (which the catalog assigns from 1 up) and stay put when other
 * columns are added. Provenance columns, which the catalog gives no id, sit at PROVENANCE_BASE + position.
 */
const NESTED_STRIDE = 65_536;
const PROVENANCE_BASE = 1_000_000_000;

const PRIMITIVES: Partial<Record<TypeJson["id"], (t: TypeJson) => string | undefined>> = {
  utf8: () => "string",
  bool: () => "boolean",
  binary: () => "binary",
  dictionary: (t) => (t.id === "dictionary" && t.value.id === "utf8" ? "string" : undefined),
  int: (t) => (t.id !== "int" || !t.signed ? undefined : t.bits === 64 ? "long" : "int"),
  float: (t) =>
    t.id !== "float" ? undefined : t.precision === 32 ? "float" : t.precision === 64 ? "double" : undefined,
  // Iceberg v2 timestamps are microseconds, and so must the Parquet files' be.
  timestamp: (t) =>
    t.id !== "timestamp" || t.unit !== "us" ? undefined : t.tz ? "timestamptz" : "timestamp",
};

function describe(t: TypeJson): string {
  if (t.id === "int") return `${t.signed ? "" : "u"}int${t.bits}`;
  if (t.id === "float") return `float${t.precision}`;
  if (t.id === "timestamp") return `timestamp(${t.unit}${t.tz ? `, ${t.tz}` : ""})`;
  return t.id;
}

class Converter {
  constructor(
    readonly table: string,
    readonly nextNested: () => number,
  ) {}

  type(t: TypeJson, path: string, mapping: NameMapping[]): IcebergType {
    if (t.id === "struct")
      return {
        type: "struct",
        fields: t.fields.map((f) => this.field(f, this.nextNested(), `${path}.${f.name}`, mapping)),
      };
    if (t.id === "list") {
      const id = this.nextNested();
      const children: NameMapping[] = [];
      const element = this.type(t.item.type, `${path}[]`, children);
      mapping.push({
        "field-id": id,
        names: ["element", t.item.name],
        ...(children.length ? { fields: children } : {}),
      });
      return { type: "list", "element-id": id, element, "element-required": !t.item.nullable };
    }
    const primitive = PRIMITIVES[t.id]?.(t);
    if (primitive) return primitive;
    const why =
      t.id === "timestamp"
        ? `Iceberg v2 timestamps are microseconds${t.unit === "ns" ? " (nanoseconds need v3's timestamptz_ns)" : ""}`
        : t.id === "int" && !t.signed
          ? "Iceberg has no unsigned integers"
          : "Iceberg v2 has no such type";
    throw new AvaError(
      "UNSUPPORTED_TYPE",
      `${this.table}: column "${path}" has type ${describe(t)}, which Iceberg metadata cannot describe: ${why}`,
    );
  }

  field(f: FieldJson, id: number, path: string, mapping: NameMapping[], names = [f.name]): IcebergField {
    const children: NameMapping[] = [];
    const type = this.type(f.type, path, children);
    mapping.push({ "field-id": id, names, ...(children.length ? { fields: children } : {}) });
    return { id, name: f.name, required: !f.nullable, type };
  }
}

export interface IcebergSchemas {
  schemas: IcebergSchema[];
  currentSchemaId: number;
  lastColumnId: number;
  /** For every field id, every name it had in any schema version (renames included). */
  nameMapping: NameMapping[];
}

/**
 * By the catalog's schema versions, which keep their identity from one state to the next until the schema
 * changes: every commit's export then reuses the same Iceberg schema objects, and what is made once per
 * schema object (manifest headers, see manifests.ts) is made once per schema version.
 */
const made = new WeakMap<object, { rowLineage: boolean; schemas: IcebergSchemas }>();

/** Every schema version of a table as an Iceberg schema, with the provenance columns when the table has them. */
export function icebergSchemas(
  meta: Pick<TableMeta, "schema" | "schemas" | "createdMs" | "rowLineage">,
  identifier: string,
): IcebergSchemas {
  const key = meta.schemas ?? meta.schema;
  const known = made.get(key);
  if (known?.rowLineage === meta.rowLineage) return known.schemas;
  const schemas = buildSchemas(meta, identifier);
  made.set(key, { rowLineage: meta.rowLineage, schemas });
  return schemas;
}

function buildSchemas(
  meta: Pick<TableMeta, "schema" | "schemas" | "createdMs" | "rowLineage">,
  identifier: string,
): IcebergSchemas {
  const versions = schemaVersionsOf(meta);
  const names = new Map<number, Set<string>>();
  for (const v of versions) for (const f of v.fields) addName(names, v.fieldIds[f.name]!, f.name);
  let lastColumnId = 0;
  let mapping: NameMapping[] = [];
  const schemas = versions.map((v) => {
    const built = schemaOf(identifier, v, meta.rowLineage, names);
    mapping = built.mapping; // the newest version's mapping, with every older name of each id
    lastColumnId = Math.max(lastColumnId, ...built.ids);
    return built.schema;
  });
  return { schemas, currentSchemaId: versions.at(-1)!.id, lastColumnId, nameMapping: mapping };
}

function addName(names: Map<number, Set<string>>, id: number, name: string): void {
  const set = names.get(id) ?? new Set();
  set.add(name);
  names.set(id, set);
}

function schemaOf(
  table: string,
  version: SchemaVersion,
  rowLineage: boolean,
  names: Map<number, Set<string>>,
): { schema: IcebergSchema; mapping: NameMapping[]; ids: number[] } {
  const ids: number[] = [];
  const mapping: NameMapping[] = [];
  const columns: IcebergField[] = [];
  const add = (f: FieldJson, id: number) => {
    let n = 0;
    const converter = new Converter(table, () => {
      const nested = id * NESTED_STRIDE + ++n;
      ids.push(nested);
      return nested;
    });
    ids.push(id);
    columns.push(converter.field(f, id, f.name, mapping, [...(names.get(id) ?? [f.name])]));
  };
  for (const f of version.fields) add(f, version.fieldIds[f.name]!);
  if (rowLineage)
    for (const [i, f] of PROVENANCE_FIELDS.entries())
      add({ name: f.name, type: provenanceType(f.name), nullable: f.nullable }, PROVENANCE_BASE + i);
  if (new Set(ids).size !== ids.length)
    throw new AvaError(
      "UNSUPPORTED_TYPE",
      `${table}: too many columns or nested fields to number for Iceberg`,
    );
  return { schema: { type: "struct", "schema-id": version.id, fields: columns }, mapping, ids };
}

function provenanceType(name: string): TypeJson {
  return name === "_ava_updated_at" ? { id: "timestamp", unit: "us", tz: "UTC" } : { id: "utf8" };
}
