// Lossless casts of Arrow data to a table's column type: integer widening, ints and float32 to float64,
// coarser to finer timestamp units, Utf8 <-> Dictionary<Utf8>. Anything else is a schema mismatch.
import * as A from "apache-arrow";
import { type TypeJson, typeToJson } from "./arrow-json.js";

/** Type identity for appends: names, types and layout; child nullability and metadata are not compared. */
export function typeShape(t: TypeJson): unknown {
  switch (t.id) {
    case "struct":
      return { id: "struct", fields: t.fields.map((f) => [f.name, typeShape(f.type)]) };
    case "list":
      return { id: "list", item: typeShape(t.item.type) };
    case "dictionary":
      return { id: "dictionary", value: typeShape(t.value) };
    default:
      return t;
  }
}

/**
 * Each type object's shape as text, made once: a table's declared types are the same objects on every
 * append, and so are the types of rows an app builds alike; serializing both sides of every column on
 * every append was a tenth of a small append's CPU. Undefined: a type typeToJson cannot describe.
 */
const shapes = new WeakMap<A.DataType, string | undefined>();

function shapeText(t: A.DataType): string | undefined {
  if (shapes.has(t)) return shapes.get(t);
  let text: string | undefined;
  try {
    text = JSON.stringify(typeShape(typeToJson(t, "")));
  } catch {
    text = undefined;
  }
  shapes.set(t, text);
  return text;
}

export function sameType(a: A.DataType, b: A.DataType): boolean {
  const shape = shapeText(a);
  return shape !== undefined && (a === b || shape === shapeText(b));
}

const UNIT_MICROS = [1_000_000n, 1_000n, 1n, 0n]; // s, ms, us, ns (ns is never a lossless source for us)

function rebuild(data: A.Data, to: A.DataType, convert: (v: unknown) => unknown): A.Data {
  const builder = A.makeBuilder({ type: to, nullValues: [null, undefined] });
  const vector = A.makeVector(data);
  for (let i = 0; i < vector.length; i++) {
    const v = vector.get(i);
    builder.append(v === null ? null : convert(v));
  }
  return builder.finish().flush();
}

/** The data recast to `to`, or undefined when that cast could lose information. */
export function castData(data: A.Data, to: A.DataType): A.Data | undefined {
  const from = data.type as A.DataType;
  if (sameType(from, to)) return data.clone(to);
  if (A.DataType.isInt(to) && A.DataType.isInt(from) && to.bitWidth === 64 && to.isSigned) {
    if (from.bitWidth === 64) return undefined; // uint64 -> int64 can overflow
    return rebuild(data, to, (v) => BigInt(v as number));
  }
  if (A.DataType.isFloat(to) && to.precision === A.Precision.DOUBLE) {
    if (A.DataType.isFloat(from) || (A.DataType.isInt(from) && from.bitWidth <= 32)) {
      return rebuild(data, to, (v) => Number(v));
    }
    return undefined;
  }
  if (A.DataType.isTimestamp(to) && A.DataType.isTimestamp(from)) {
    const sameZone = (from.timezone ?? "UTC") === (to.timezone ?? "UTC");
    const factor = UNIT_MICROS[from.unit]! / UNIT_MICROS[to.unit]!;
    if (!sameZone || UNIT_MICROS[to.unit] === 0n || UNIT_MICROS[from.unit]! % UNIT_MICROS[to.unit]! !== 0n) {
      return undefined;
    }
    const src = data.values as BigInt64Array;
    const values = new BigInt64Array(data.length);
    for (let i = 0; i < data.length; i++) values[i] = src[data.offset + i]! * factor;
    return A.makeData({
      type: to,
      length: data.length,
      nullCount: data.nullCount,
      nullBitmap: nullBitmap(data),
      data: values,
    });
  }
  const isUtf8Like = (t: A.DataType) =>
    A.DataType.isUtf8(t) || (A.DataType.isDictionary(t) && A.DataType.isUtf8(t.dictionary));
  if (isUtf8Like(to) && isUtf8Like(from)) return rebuild(data, to, (v) => v);
  return undefined;
}

function nullBitmap(data: A.Data): Uint8Array | undefined {
  if (data.nullCount === 0) return undefined;
  const v = A.makeVector(data);
  const bitmap = new Uint8Array(Math.ceil(data.length / 8));
  for (let i = 0; i < data.length; i++) if (v.isValid(i)) bitmap[i >> 3]! |= 1 << (i & 7);
  return bitmap;
}
