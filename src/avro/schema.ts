// The Avro stream schema (io.nominal.ingest.AvroStream): the seed's text, which our writer emits exactly,
// and resolution of a file's own schema — the seed's union order, nominal-streaming's Rust order (double,
// string, long, …) and the legacy [double, string] schema. Anything else is refused.
import { AvaError } from "../errors.js";

export type ValueKind = "double" | "long" | "string" | "doubleArray" | "stringArray" | "json";

/** The seed document's schema, field for field and in its union order. */
export const AVRO_STREAM_SCHEMA = {
  type: "record",
  name: "AvroStream",
  namespace: "io.nominal.ingest",
  fields: [
    { name: "channel", type: "string" },
    { name: "timestamps", type: { type: "array", items: "long" } },
    {
      name: "values",
      type: {
        type: "array",
        items: [
          "double",
          "long",
          "string",
          {
            type: "record",
            name: "DoubleArray",
            fields: [{ name: "items", type: { type: "array", items: "double" } }],
          },
          {
            type: "record",
            name: "StringArray",
            fields: [{ name: "items", type: { type: "array", items: "string" } }],
          },
          { type: "record", name: "JsonStruct", fields: [{ name: "json", type: "string" }] },
        ],
      },
    },
    { name: "tags", type: { type: "map", values: "string" }, default: {} },
  ],
} as const;

export const AVRO_STREAM_SCHEMA_TEXT = JSON.stringify(AVRO_STREAM_SCHEMA);

const VARIANTS = {
  seed: ["double", "long", "string", "doubleArray", "stringArray", "json"],
  rust: ["double", "string", "long", "doubleArray", "stringArray", "json"],
  legacy: ["double", "string"],
} as const satisfies Record<string, readonly ValueKind[]>;

export type SchemaVariant = keyof typeof VARIANTS;

/** Our writer's union index of each kind (the seed's order). */
export const SEED_BRANCH: Record<ValueKind, number> = {
  double: 0,
  long: 1,
  string: 2,
  doubleArray: 3,
  stringArray: 4,
  json: 5,
};

export interface StreamSchema {
  variant: SchemaVariant;
  /** Union branch index -> the kind of value it holds. */
  branches: readonly ValueKind[];
}

type Json = unknown;

function refuse(detail: string): never {
  throw new AvaError(
    "AVRO_SCHEMA",
    `the file's schema is not an Avro stream (io.nominal.ingest.AvroStream): ${detail}`,
  );
}

const named = (t: Json, name: string) =>
  typeof t === "object" &&
  t !== null &&
  (t as { name?: unknown }).name !== undefined &&
  String((t as { name: unknown }).name)
    .split(".")
    .at(-1) === name;

function isArrayOf(t: Json, items: string): boolean {
  return (
    typeof t === "object" &&
    t !== null &&
    (t as { type?: unknown }).type === "array" &&
    (t as { items?: unknown }).items === items
  );
}

function fieldsOf(t: Json): { name: string; type: Json }[] {
  const fields = (t as { fields?: unknown }).fields;
  return Array.isArray(fields) ? (fields as { name: string; type: Json }[]) : [];
}

function branchKind(t: Json): ValueKind | undefined {
  if (t === "double" || t === "long" || t === "string") return t;
  const fields = fieldsOf(t);
  if (
    named(t, "DoubleArray") &&
    fields.length === 1 &&
    fields[0]!.name === "items" &&
    isArrayOf(fields[0]!.type, "double")
  )
    return "doubleArray";
  if (
    named(t, "StringArray") &&
    fields.length === 1 &&
    fields[0]!.name === "items" &&
    isArrayOf(fields[0]!.type, "string")
  )
    return "stringArray";
  if (
    named(t, "JsonStruct") &&
    fields.length === 1 &&
    fields[0]!.name === "json" &&
    fields[0]!.type === "string"
  )
    return "json";
  return undefined;
}

export function resolveStreamSchema(text: string): StreamSchema {
  let schema: Json;
  try {
    schema = JSON.parse(text);
  } catch {
    return refuse("its schema is not JSON");
  }
  if (!named(schema, "AvroStream")) return refuse("the record is not named AvroStream");
  const fields = fieldsOf(schema);
  const names = fields.map((f) => f.name).join(", ");
  if (names !== "channel, timestamps, values, tags")
    return refuse(`fields are [${names}], expected [channel, timestamps, values, tags]`);
  const [channel, timestamps, values, tags] = fields.map((f) => f.type);
  if (channel !== "string") return refuse("channel is not a string");
  if (!isArrayOf(timestamps, "long")) return refuse("timestamps is not an array of long");
  const tagsType = tags as { type?: unknown; values?: unknown };
  if (tagsType?.type !== "map" || tagsType.values !== "string") return refuse("tags is not a map of string");
  const union = (values as { type?: unknown; items?: unknown })?.items;
  if ((values as { type?: unknown })?.type !== "array" || !Array.isArray(union))
    return refuse("values is not an array of a union");
  const kinds = union.map(branchKind);
  for (const [variant, order] of Object.entries(VARIANTS) as [SchemaVariant, readonly ValueKind[]][]) {
    if (kinds.length === order.length && kinds.every((k, i) => k === order[i]))
      return { variant, branches: order };
  }
  return refuse(
    `the values union is [${kinds.map((k) => k ?? "?").join(", ")}], which is none of the known orders`,
  );
}
