// Generic Avro datums for Iceberg's metadata files (manifests, manifest lists): the few Avro types their
// schemas use — records, ["null", T] unions, arrays, int, long, string, bytes, boolean — encoded and decoded
// by walking the schema. The AvroStream codec in src/avro is hand-written for its one schema; these files
// are small (a row per data file), so a schema walk is fast enough and keeps the spec's schemas as data.
import { type ByteReader, ByteWriter } from "../avro/binary.js";
import { AvaError } from "../errors.js";
import { concatBytes } from "../util/bytes.js";
import { getOrCreate } from "../util/get-or-create.js";

export type AvroPrimitive = "null" | "boolean" | "int" | "long" | "string" | "bytes";

export interface AvroField {
  name: string;
  type: AvroType;
  /** Iceberg's field id, carried as an extra attribute of the field (Avro keeps unknown attributes). */
  "field-id": number;
  default?: null;
  doc?: string;
}

export interface AvroRecord {
  type: "record";
  name: string;
  fields: AvroField[];
}

export interface AvroArray {
  type: "array";
  items: AvroType;
  /** Iceberg's id of a list's element; a map<int, T> (an array of key/value records) has none. */
  "element-id"?: number;
  /** "map": Iceberg's map with non-string keys, written as an array of key/value records. */
  logicalType?: "map";
}

export type AvroType = AvroPrimitive | AvroRecord | AvroArray | ["null", AvroType];

/** A datum as JS: records are objects, longs numbers or bigints, bytes Uint8Array, null for null. */
export type AvroValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | AvroValue[]
  | { [name: string]: AvroValue | undefined };

export function encodeDatum(w: ByteWriter, type: AvroType, value: AvroValue | undefined, at: string): void {
  if (Array.isArray(type)) {
    // ["null", T]: branch 0 for null (or absent), branch 1 for a value.
    if (value === null || value === undefined) w.long(0);
    else {
      w.long(1);
      encodeDatum(w, type[1], value, at);
    }
    return;
  }
  if (typeof type === "object") {
    if (type.type === "record") {
      const rec = value as Record<string, AvroValue | undefined> | null | undefined;
      if (rec === null || typeof rec !== "object") throw bad(at, "a record");
      for (const f of type.fields) encodeDatum(w, f.type, rec[f.name], `${at}.${f.name}`);
      return;
    }
    if (!Array.isArray(value)) throw bad(at, "an array");
    if (value.length > 0) {
      w.long(value.length);
      for (const [i, v] of value.entries()) encodeDatum(w, type.items, v, `${at}[${i}]`);
    }
    w.long(0);
    return;
  }
  switch (type) {
    case "null":
      return;
    case "boolean":
      if (typeof value !== "boolean") throw bad(at, "a boolean");
      w.raw(new Uint8Array([value ? 1 : 0]));
      return;
    case "int":
    case "long":
      if (typeof value !== "number" && typeof value !== "bigint") throw bad(at, `an ${type}`);
      w.long(value);
      return;
    case "string":
      if (typeof value !== "string") throw bad(at, "a string");
      w.string(value);
      return;
    case "bytes":
      if (!(value instanceof Uint8Array)) throw bad(at, "bytes");
      w.bytesField(value);
  }
}

function bad(at: string, what: string): AvaError {
  return new AvaError("INVALID_ARGUMENT", `Avro datum ${at}: expected ${what}`);
}

/** Longs decode as numbers when they are safe integers (sizes, counts, ids), else as bigints. */
export function decodeDatum(r: ByteReader, type: AvroType): AvroValue {
  if (Array.isArray(type)) {
    const branch = r.long();
    if (branch === 0) return null;
    if (branch !== 1) throw r.corrupt(`union branch ${branch} of ["null", …]`);
    return decodeDatum(r, type[1]);
  }
  if (typeof type === "object") {
    if (type.type === "record") {
      const out: Record<string, AvroValue> = {};
      for (const f of type.fields) out[f.name] = decodeDatum(r, f.type);
      return out;
    }
    const items: AvroValue[] = [];
    for (let n = r.blockCount("array", 1); n > 0; n = r.blockCount("array", 1))
      for (let i = 0; i < n; i++) items.push(decodeDatum(r, type.items));
    return items;
  }
  switch (type) {
    case "null":
      return null;
    case "boolean":
      return r.fixed(1, "boolean")[0] === 1;
    case "int":
      return r.long();
    case "long": {
      const v = r.longBig();
      return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
    }
    case "string":
      return r.string();
    case "bytes":
      return r.bytesField("bytes").slice();
  }
}

/**
 * Each record's bytes by schema, for records encoded again unchanged: a manifest list repeats its parent's
 * manifests (up to a hundred of them, see export.ts), and a record's Avro encoding is just its bytes.
 */
const encoded = new WeakMap<AvroRecord, WeakMap<object, Uint8Array>>();

/** Records one after another (what a container block holds); objects seen before are not walked again. */
export function encodeRecords(type: AvroRecord, values: readonly AvroValue[]): Uint8Array {
  const cache = getOrCreate(encoded, type, () => new WeakMap<object, Uint8Array>());
  const parts: Uint8Array[] = [];
  for (const [i, v] of values.entries()) {
    const key = typeof v === "object" && v !== null ? v : undefined;
    let bytes = key && cache.get(key);
    if (!bytes) {
      const w = new ByteWriter(256);
      encodeDatum(w, type, v, `${type.name}[${i}]`);
      bytes = w.view();
      if (key) cache.set(key, bytes);
    }
    parts.push(bytes);
  }
  return concatBytes(parts);
}
