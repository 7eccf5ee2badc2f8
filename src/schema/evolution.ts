// Schema evolution, judged before anything is written: the next schema version of a stored table from its
// new declaration. Compatible changes only — new nullable columns, lossless widenings, explicitly declared
// renames and drops — so that every file written under an older version still reads under the new one.
// Columns keep their field id (Iceberg's rule): a rename keeps it, a new column gets one never used before.
import { AvaError } from "../errors.js";
import type { SchemaVersion } from "../storage/catalog/model.js";
import type { FieldJson, TypeJson } from "./arrow-json.js";
import { typeShape } from "./cast.js";

/** What a declaration says about columns that are not simply kept: `renames` is new name -> old name. */
export interface EvolutionDeclaration {
  fields: readonly FieldJson[];
  renames: Readonly<Record<string, string>>;
  drops: readonly string[];
}

const sameShape = (a: TypeJson, b: TypeJson) => JSON.stringify(typeShape(a)) === JSON.stringify(typeShape(b));

/** A short type name for messages: int32, float64, dictionary<utf8>, timestamp[us, UTC], struct… */
export function typeName(t: TypeJson): string {
  switch (t.id) {
    case "int":
      return `${t.signed ? "int" : "uint"}${t.bits}`;
    case "float":
      return `float${t.precision}`;
    case "timestamp":
      return `timestamp[${t.unit}${t.tz ? `, ${t.tz}` : ""}]`;
    case "dictionary":
      return `dictionary<${typeName(t.value)}>`;
    case "list":
      return `list<${typeName(t.item.type)}>`;
    default:
      return t.id;
  }
}

const UNIT_ORDER = ["s", "ms", "us", "ns"];

/**
 * Whether every value of type `from` has an exact value of type `to` (what readers cast old files with;
 * see castData): wider signed ints, int32 and float32 to float64, finer timestamp units, enum to string.
 */
export function widens(from: TypeJson, to: TypeJson): boolean {
  if (from.id === "int" && to.id === "int") return to.signed && to.bits === 64 && from.bits < 64;
  if (to.id === "float" && to.precision === 64)
    return (from.id === "float" && from.precision < 64) || (from.id === "int" && from.bits <= 32);
  if (from.id === "timestamp" && to.id === "timestamp")
    return (
      (from.tz ?? "UTC") === (to.tz ?? "UTC") &&
      UNIT_ORDER.indexOf(from.unit) < UNIT_ORDER.indexOf(to.unit) &&
      to.unit !== "ns"
    );
  return from.id === "dictionary" && to.id === "utf8";
}

/** Why `declared` cannot replace the stored column `stored`, or undefined when it can. */
function columnChange(stored: FieldJson, declared: FieldJson): string | undefined {
  if (stored.nullable && !declared.nullable)
    return "is nullable in the table and required in the declaration; rows already stored may hold nulls: keep it optional or nullable";
  if (!sameShape(stored.type, declared.type) && !widens(stored.type, declared.type))
    return `changes type from ${typeName(stored.type)} to ${typeName(declared.type)}, which is not a lossless widening: add a column under a new name (and list the old one in drops)`;
  // Metadata marks how JS sees a column (ava.json(), z.int() as number): dropping a mark widens
  // (int -> bigint, JSON -> string), adding one would misread values already stored.
  for (const [k, v] of Object.entries(declared.metadata ?? {})) {
    if (stored.metadata?.[k] !== v)
      return `adds the column mark ${k}=${v} (e.g. z.bigint() -> z.int(), or string -> ava.json()), which values already stored may not satisfy: add a column under a new name instead`;
  }
  return undefined;
}

/** The fields' ids of every version, so a new column never reuses one (a dropped column's id stays retired). */
function nextFieldId(versions: readonly SchemaVersion[]): number {
  let max = 0;
  for (const v of versions) for (const id of Object.values(v.fieldIds)) max = Math.max(max, id);
  return max + 1;
}

/**
 * The version that evolves a table from its newest stored schema to `declared`, or undefined when they are
 * the same. Refuses an incompatible change with SCHEMA_MISMATCH naming the table, the column and the way out.
 */
export function planEvolution(
  table: string,
  versions: readonly SchemaVersion[],
  declared: EvolutionDeclaration,
  timestampMs: number,
): SchemaVersion | undefined {
  const current = versions.at(-1)!;
  if (JSON.stringify(current.fields) === JSON.stringify(declared.fields)) return undefined;
  const refuse = (column: string, why: string): never => {
    throw new AvaError("SCHEMA_MISMATCH", `table ${table} cannot evolve: column "${column}" ${why}`);
  };
  const stored = new Map(current.fields.map((f) => [f.name, f]));
  // Renames already applied (the new name is stored) stay in declarations harmlessly.
  const sourceOf = new Map<string, string>();
  for (const [to, from] of Object.entries(declared.renames)) {
    if (stored.has(to)) continue;
    if (!stored.has(from))
      refuse(to, `is declared as a rename of "${from}", which the table does not have: fix renames`);
    sourceOf.set(to, from);
  }
  let nextId = nextFieldId(versions);
  const fieldIds: Record<string, number> = {};
  const used = new Set<string>();
  for (const field of declared.fields) {
    const source = sourceOf.get(field.name) ?? (stored.has(field.name) ? field.name : undefined);
    if (source === undefined) {
      if (!field.nullable)
        refuse(
          field.name,
          "is new and required, but the rows already stored have no value for it: declare it optional or nullable (z.….optional()), or rename an existing column to it (renames)",
        );
      fieldIds[field.name] = nextId++;
      continue;
    }
    if (used.has(source)) refuse(field.name, `takes column "${source}", which another column already takes`);
    used.add(source);
    const why = columnChange(stored.get(source)!, field);
    if (why) refuse(field.name, why);
    fieldIds[field.name] = current.fieldIds[source]!;
  }
  for (const name of stored.keys()) {
    if (!used.has(name) && !declared.drops.includes(name))
      refuse(
        name,
        `is stored but no longer declared: list it in drops to drop it (old snapshots keep its data), or in renames as { newName: "${name}" }`,
      );
  }
  return { id: current.id + 1, fields: [...declared.fields], fieldIds, timestampMs };
}
