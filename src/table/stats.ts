// Column min / max / null counts of a data file, computed on the raw Arrow buffers (strings are compared
// as UTF-8 bytes and only the winners decoded) so that they cost little beside the Parquet encode.
import * as A from "apache-arrow";
import type { ColumnStats, DataFile, StatValue } from "../storage/catalog/model.js";
import { AVA_TYPE } from "../schema/metadata.js";

/** Strings longer than this keep a truncated min and no max (a truncated max would not be an upper bound). */
const MAX_STRING_STAT = 64;

type Bounds = { min: unknown; max: unknown } | undefined;

function valid(data: A.Data, i: number): boolean {
  if (data.nullCount === 0) return true;
  const bitmap = data.nullBitmap;
  if (!bitmap || bitmap.length === 0) return data.nullCount !== data.length;
  const j = data.offset + i;
  return ((bitmap[j >> 3]! >> (j & 7)) & 1) === 1;
}

function floatBounds(data: A.Data): Bounds {
  const values = data.values as
    | Float64Array
    | Float32Array
    | Int32Array
    | Int16Array
    | Int8Array
    | Uint32Array;
  const start = data.offset;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let seen = false;
  const all = data.nullCount === 0;
  if (all && values instanceof Float64Array) return float64Bounds(values, start, start + data.length);
  for (let i = 0; i < data.length; i++) {
    if (!all && !valid(data, i)) continue;
    const v = values[start + i]!;
    if (Number.isNaN(v)) continue; // NaN orders with nothing
    seen = true;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return seen ? { min, max } : undefined;
}

/**
 * Bounds of a Float64 column without nulls (telemetry values: a quarter of a long table's stats time went
 * to the general loop), in a loop of one array type. NaN moves neither bound; all NaN: no bounds.
 */
function float64Bounds(values: Float64Array, from: number, to: number): Bounds {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = from; i < to; i++) {
    const v = values[i]!;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return min <= max ? { min, max } : undefined;
}

/**
 * Int64 (and timestamps) compared as (high word, unsigned low word) pairs on an Int32Array view: reading
 * a BigInt64Array allocates a BigInt per element, which made stats cost a third of the Parquet encode.
 */
function int64Bounds(data: A.Data, signed: boolean): Bounds {
  const values = data.values as BigInt64Array | BigUint64Array;
  const words = new Int32Array(values.buffer, values.byteOffset, values.length * 2);
  const all = data.nullCount === 0;
  let minI = -1;
  let maxI = -1;
  let minHi = 0;
  let minLo = 0;
  let maxHi = 0;
  let maxLo = 0;
  if (all && signed) {
    const [lo, hi] = signedInt64Extremes(words, data.offset, data.offset + data.length);
    return data.length > 0 ? { min: values[lo]!, max: values[hi]! } : undefined;
  }
  for (let i = 0; i < data.length; i++) {
    if (!all && !valid(data, i)) continue;
    const w = (data.offset + i) * 2;
    const lo = words[w]! >>> 0;
    const hi = signed ? words[w + 1]! : words[w + 1]! >>> 0;
    if (minI < 0 || hi < minHi || (hi === minHi && lo < minLo)) {
      minI = i;
      minHi = hi;
      minLo = lo;
    }
    if (maxI < 0 || hi > maxHi || (hi === maxHi && lo > maxLo)) {
      maxI = i;
      maxHi = hi;
      maxLo = lo;
    }
  }
  if (minI < 0) return undefined;
  return { min: values[data.offset + minI]!, max: values[data.offset + maxI]! };
}

/** The indices of the smallest and largest of values [from, to) of a signed 64-bit column (its words). */
function signedInt64Extremes(words: Int32Array, from: number, to: number): [min: number, max: number] {
  let minI = from;
  let maxI = from;
  let minHi = words[2 * from + 1]! | 0;
  let minLo = words[2 * from]! >>> 0;
  let maxHi = minHi;
  let maxLo = minLo;
  for (let i = from + 1; i < to; i++) {
    const hi = words[2 * i + 1]! | 0;
    const lo = words[2 * i]! >>> 0;
    if (hi < minHi || (hi === minHi && lo < minLo)) {
      minI = i;
      minHi = hi;
      minLo = lo;
    }
    if (hi > maxHi || (hi === maxHi && lo > maxLo)) {
      maxI = i;
      maxHi = hi;
      maxLo = lo;
    }
  }
  return [minI, maxI];
}

function boolBounds(data: A.Data): Bounds {
  const bits = data.values as Uint8Array;
  let sawTrue = false;
  let sawFalse = false;
  for (let i = 0; i < data.length && !(sawTrue && sawFalse); i++) {
    if (!valid(data, i)) continue;
    const j = data.offset + i;
    if ((bits[j >> 3]! >> (j & 7)) & 1) sawTrue = true;
    else sawFalse = true;
  }
  if (!sawTrue && !sawFalse) return undefined;
  return { min: !sawFalse, max: sawTrue };
}

function compareBytes(bytes: Uint8Array, a0: number, a1: number, b0: number, b1: number): number {
  const n = Math.min(a1 - a0, b1 - b0);
  for (let k = 0; k < n; k++) {
    const d = bytes[a0 + k]! - bytes[b0 + k]!;
    if (d !== 0) return d;
  }
  return a1 - a0 - (b1 - b0);
}

function utf8Bounds(data: A.Data): Bounds {
  const offsets = data.valueOffsets as Int32Array;
  const bytes = data.values as Uint8Array;
  let minI = -1;
  let maxI = -1;
  let m0 = 0;
  let m1 = 0;
  let x0 = 0;
  let x1 = 0;
  const all = data.nullCount === 0;
  let p0 = 0;
  let p1 = -1;
  for (let i = 0; i < data.length; i++) {
    if (!all && !valid(data, i)) continue;
    const s = offsets[data.offset + i]!;
    const e = offsets[data.offset + i + 1]!;
    // Runs of one value (a channel, a tag set) are the rule: a row equal to the last one cannot move a bound.
    if (e - s === p1 - p0 && compareBytes(bytes, s, e, p0, p1) === 0) continue;
    p0 = s;
    p1 = e;
    if (minI < 0 || compareBytes(bytes, s, e, m0, m1) < 0) [minI, m0, m1] = [i, s, e];
    if (maxI < 0 || compareBytes(bytes, s, e, x0, x1) > 0) [maxI, x0, x1] = [i, s, e];
  }
  if (minI < 0) return undefined;
  const vector = A.makeVector(data);
  return { min: vector.get(minI), max: vector.get(maxI) };
}

function boundsOf(data: A.Data): Bounds {
  if (data.nullCount === data.length) return undefined;
  const type = data.type as A.DataType;
  if (A.DataType.isTimestamp(type)) return int64Bounds(data, true);
  if (A.DataType.isInt(type))
    return type.bitWidth === 64 ? int64Bounds(data, type.isSigned) : floatBounds(data);
  if (A.DataType.isFloat(type)) return type.precision === A.Precision.HALF ? undefined : floatBounds(data);
  if (A.DataType.isUtf8(type)) return utf8Bounds(data);
  if (A.DataType.isBool(type)) return boolBounds(data);
  if (A.DataType.isDictionary(type) && data.dictionary) {
    // Bounds of the dictionary: a superset of the values used, so still safe for pruning.
    const dict = data.dictionary.data.map(utf8Bounds).filter((b) => b !== undefined);
    if (dict.length === 0) return undefined;
    const mins = dict.map((b) => b.min as string).sort();
    const maxs = dict.map((b) => b.max as string).sort();
    return { min: mins[0], max: maxs.at(-1) };
  }
  return undefined;
}

function merge(a: Bounds, b: Bounds): Bounds {
  if (!a) return b;
  if (!b) return a;
  // Bounds are numbers, bigints, strings or booleans; `<` orders each of them (and bigint against number).
  const lt = (x: unknown, y: unknown) => (x as number) < (y as number);
  return { min: lt(b.min, a.min) ? b.min : a.min, max: lt(a.max, b.max) ? b.max : a.max };
}

function toStat(v: unknown): StatValue {
  if (typeof v === "bigint") return { bigint: v.toString() };
  if (v === Number.POSITIVE_INFINITY) return { float: "Infinity" };
  if (v === Number.NEGATIVE_INFINITY) return { float: "-Infinity" };
  return v as StatValue;
}

/**
 * A stored bound back as a value; undefined when it is not a usable bound (catalogs written before ±Infinity
 * was tagged hold null there, and a bound nobody can read must never prune a file).
 */
export function fromStat(v: StatValue | null | undefined): string | number | boolean | bigint | undefined {
  if (typeof v === "number") return Number.isNaN(v) ? undefined : v;
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v !== "object" || v === null) return undefined;
  if ("bigint" in v && typeof v.bigint === "string" && /^-?\d+$/.test(v.bigint)) return BigInt(v.bigint);
  if ("float" in v && (v.float === "Infinity" || v.float === "-Infinity")) return Number(v.float);
  return undefined;
}

function isScalar(type: A.DataType): boolean {
  return (
    A.DataType.isInt(type) ||
    A.DataType.isFloat(type) ||
    A.DataType.isTimestamp(type) ||
    A.DataType.isUtf8(type) ||
    A.DataType.isBool(type) ||
    A.DataType.isDictionary(type)
  );
}

/** A schema's columns that get stats, found once per schema object (appends share their table's). */
const statColumns = new WeakMap<A.Schema, readonly (readonly [A.Field, number])[]>();

function statColumnsOf(schema: A.Schema): readonly (readonly [A.Field, number])[] {
  let columns = statColumns.get(schema);
  if (!columns) {
    columns = schema.fields
      .map((field, index) => [field, index] as const)
      .filter(([field]) => isScalar(field.type) && field.metadata.get(AVA_TYPE) !== "json");
    statColumns.set(schema, columns);
  }
  return columns;
}

/** Stats of every scalar column (nested and JSON columns are never pruned on). */
export function columnStats(table: A.Table): Record<string, ColumnStats> {
  const out: Record<string, ColumnStats> = {};
  for (const [field, index] of statColumnsOf(table.schema)) {
    let bounds: Bounds;
    let nullCount = 0;
    for (const batch of table.batches) {
      const data = batch.data.children[index]!;
      nullCount += data.nullCount;
      bounds = merge(bounds, boundsOf(data));
    }
    const stats: ColumnStats = { nullCount };
    if (bounds) {
      const { min, max } = bounds;
      if (typeof min === "string" && min.length > MAX_STRING_STAT) stats.min = min.slice(0, MAX_STRING_STAT);
      else stats.min = toStat(min);
      if (!(typeof max === "string" && max.length > MAX_STRING_STAT)) stats.max = toStat(max);
    }
    out[field.name] = stats;
  }
  return out;
}

/**
 * The stats of files' rows taken together, from each file's own (what columnStats gives on the rows,
 * except that a string bound a file truncated or dropped stays so): what a flush that never decodes
 * the rows records. A column without usable stats in some file that has values gets none.
 */
export function mergedStats(files: readonly DataFile[]): Record<string, ColumnStats> {
  const out: Record<string, ColumnStats> = {};
  column: for (const name of Object.keys(files[0]?.stats ?? {})) {
    let bounds: Bounds;
    let nullCount = 0;
    let maxDropped = false;
    for (const file of files) {
      const c = file.stats[name];
      if (!c) continue column;
      nullCount += c.nullCount;
      const min = fromStat(c.min);
      if (min === undefined) {
        if (c.nullCount === file.rowCount) continue; // all null: no bounds to merge
        continue column;
      }
      const max = fromStat(c.max);
      if (max === undefined) maxDropped = true;
      bounds = merge(bounds, { min, max: max ?? min });
    }
    const merged: ColumnStats = { nullCount };
    if (bounds) {
      merged.min = toStat(bounds.min);
      if (!maxDropped) merged.max = toStat(bounds.max);
    }
    out[name] = merged;
  }
  return out;
}
