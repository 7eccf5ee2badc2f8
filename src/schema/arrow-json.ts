// Arrow schemas as plain JSON, for the catalog. Only the types the library supports are representable;
// anything else is refused with the field's path, at definition time.
import * as A from "apache-arrow";
import { AvaError } from "../errors.js";

export type TypeJson =
  | { id: "utf8" }
  | { id: "bool" }
  | { id: "binary" }
  | { id: "int"; bits: 8 | 16 | 32 | 64; signed: boolean }
  | { id: "float"; precision: 16 | 32 | 64 }
  | { id: "timestamp"; unit: "s" | "ms" | "us" | "ns"; tz: string | null }
  | { id: "dictionary"; value: TypeJson; index: TypeJson }
  | { id: "struct"; fields: FieldJson[] }
  | { id: "list"; item: FieldJson };

export interface FieldJson {
  name: string;
  type: TypeJson;
  nullable: boolean;
  metadata?: Record<string, string>;
}

const UNITS = ["s", "ms", "us", "ns"] as const;

export function typeToJson(type: A.DataType, path: string): TypeJson {
  if (A.DataType.isUtf8(type)) return { id: "utf8" };
  if (A.DataType.isBool(type)) return { id: "bool" };
  if (A.DataType.isBinary(type)) return { id: "binary" };
  if (A.DataType.isInt(type)) return { id: "int", bits: type.bitWidth, signed: type.isSigned };
  if (A.DataType.isFloat(type)) return { id: "float", precision: ([16, 32, 64] as const)[type.precision] };
  if (A.DataType.isTimestamp(type))
    return { id: "timestamp", unit: UNITS[type.unit]!, tz: type.timezone ?? null };
  if (A.DataType.isDictionary(type)) {
    if (!A.DataType.isUtf8(type.dictionary)) unsupported(path, `Dictionary<${type.dictionary}>`);
    return { id: "dictionary", value: { id: "utf8" }, index: typeToJson(type.indices, path) };
  }
  if (A.DataType.isStruct(type)) {
    return { id: "struct", fields: type.children.map((f) => fieldToJson(f, `${path}.${f.name}`)) };
  }
  if (A.DataType.isList(type)) return { id: "list", item: fieldToJson(type.children[0]!, `${path}[]`) };
  return unsupported(path, String(type));
}

function unsupported(path: string, what: string): never {
  throw new AvaError("UNSUPPORTED_TYPE", `field "${path}" has type ${what}, which tables do not support`);
}

export function fieldToJson(field: A.Field, path = field.name): FieldJson {
  const out: FieldJson = { name: field.name, type: typeToJson(field.type, path), nullable: field.nullable };
  if (field.metadata.size > 0) out.metadata = Object.fromEntries(field.metadata);
  return out;
}

export function schemaToJson(schema: A.Schema): FieldJson[] {
  return schema.fields.map((f) => fieldToJson(f));
}

export function typeFromJson(t: TypeJson): A.DataType {
  switch (t.id) {
    case "utf8":
      return new A.Utf8();
    case "bool":
      return new A.Bool();
    case "binary":
      return new A.Binary();
    case "int":
      return new A.Int(t.signed, t.bits);
    case "float":
      return new A.Float(
        ({ 16: A.Precision.HALF, 32: A.Precision.SINGLE, 64: A.Precision.DOUBLE } as const)[t.precision],
      );
    case "timestamp":
      return new A.Timestamp(UNITS.indexOf(t.unit) as A.TimeUnit, t.tz);
    case "dictionary":
      return new A.Dictionary(typeFromJson(t.value), typeFromJson(t.index) as A.Int32);
    case "struct":
      return new A.Struct(t.fields.map(fieldFromJson));
    case "list":
      return new A.List(fieldFromJson(t.item));
  }
}

export function fieldFromJson(f: FieldJson): A.Field {
  return new A.Field(f.name, typeFromJson(f.type), f.nullable, new Map(Object.entries(f.metadata ?? {})));
}

export function schemaFromJson(fields: FieldJson[]): A.Schema {
  return new A.Schema(fields.map(fieldFromJson));
}
