// Generic Avro datums for Iceberg's metadata files (manifests, manifest lists): the few Avro types their
// schemas use — records, ["null", T] unions, arrays, int, long, string, bytes, boolean — encoded and decoded
// by walking the schema. The AvroStream codec in src/avro is hand-written for its one schema; these files
// are small (a row per data file), so a schema walk is fast enough and keeps the spec's schemas as data.
import type { ByteReader, ByteWriter } from "../avro/binary.js";
import { AvaError } from "../errors.js";
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
  try {
    encodeValue(w, type, value);
  } catch (err) {
    if (err instanceof Misfit)
      throw new AvaError("INVALID_ARGUMENT", `Avro datum ${at}${err.path}: expected ${err.what}`);
    throw err;
  }
}

/**
 * A value that does not fit its type, on its way up to encodeDatum, which names it. Its path is built as it
 * passes each record and array: building it on the way down cost a string per field of every datum.
 */
class Misfit {
  path = "";
  constructor(readonly what: string) {}
}

function within(err: unknown, step: string): unknown {
  if (err instanceof Misfit) err.path = `${step}${err.path}`;
  return err;
}

function encodeValue(w: ByteWriter, type: AvroType, value: AvroValue | undefined): void {
  if (Array.isArray(type)) {
    // ["null", T]: branch 0 for null (or absent), branch 1 for a value.
    if (value === null || value === undefined) w.long(0);
    else {
      w.long(1);
      encodeValue(w, type[1], value);
    }
    return;
  }
  if (typeof type === "object") {
    if (type.type === "record") {
      const rec = value as Record<string, AvroValue | undefined> | null | undefined;
      if (rec === null || typeof rec !== "object") throw new Misfit("a record");
      for (const f of type.fields)
        try {
          encodeValue(w, f.type, rec[f.name]);
        } catch (err) {
          throw within(err, `.${f.name}`);
        }
      return;
    }
    if (!Array.isArray(value)) throw new Misfit("an array");
    if (value.length > 0) {
      w.long(value.length);
      for (let i = 0; i < value.length; i++)
        try {
          encodeValue(w, type.items, value[i]);
        } catch (err) {
          throw within(err, `[${i}]`);
        }
    }
    w.long(0);
    return;
  }
  switch (type) {
    case "null":
      return;
    case "boolean":
      if (typeof value !== "boolean") throw new Misfit("a boolean");
      w.reserve(1);
      w.buf[w.length++] = value ? 1 : 0;
      return;
    case "int":
    case "long":
      if (typeof value !== "number" && typeof value !== "bigint")
        throw new Misfit(type === "int" ? "an int" : "a long");
      w.long(value);
      return;
    case "string":
      if (typeof value !== "string") throw new Misfit("a string");
      w.string(value);
      return;
    case "bytes":
      if (!(value instanceof Uint8Array)) throw new Misfit("bytes");
      w.bytesField(value);
  }
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

/**
 * Records one after another (what a container block holds), appended to `w`. With `remember`, each
 * record's bytes are kept for the next time the same object is encoded, and objects seen before are not
 * walked again (records encoded once, such as a manifest's entries, are not worth the copy).
 */
export function encodeRecords(
  w: ByteWriter,
  type: AvroRecord,
  values: readonly AvroValue[],
  remember: boolean,
): void {
  const cache = getOrCreate(encoded, type, () => new WeakMap<object, Uint8Array>());
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    const key = remember && typeof v === "object" && v !== null ? v : undefined;
    const bytes = key && cache.get(key);
    if (bytes) {
      w.append(bytes);
      continue;
    }
    const start = w.length;
    encodeDatum(w, type, v, `${type.name}[${i}]`);
    if (key) cache.set(key, w.buf.slice(start, w.length));
  }
}
