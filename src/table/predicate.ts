// Scan filters: a small typed predicate language on scalar columns. The same predicate prunes data files
// by their catalog statistics (conservatively: "may match") and then filters rows exactly.
import * as A from "apache-arrow";
import { AvaError, describeValue } from "../errors.js";
import type { ColumnStats } from "../storage/catalog/model.js";
import { isProvenanceColumn } from "../schema/provenance.js";
import { fromStat } from "./stats.js";

export type Scalar = string | number | bigint | boolean | Date;
type Comparison = "eq" | "ne" | "lt" | "lte" | "gt" | "gte";

export interface ComparePredicate {
  op: Comparison;
  column: string;
  value: Scalar;
}
export interface InPredicate {
  op: "in";
  column: string;
  values: readonly Scalar[];
}
export interface NullPredicate {
  op: "isNull" | "notNull";
  column: string;
}
export interface GroupPredicate {
  op: "and" | "or";
  args: readonly Predicate[];
}
export type Predicate = ComparePredicate | InPredicate | NullPredicate | GroupPredicate;

const isGroup = (p: Predicate): p is GroupPredicate => p.op === "and" || p.op === "or";
const isNullCheck = (p: Predicate): p is NullPredicate => p.op === "isNull" || p.op === "notNull";

/**
 * The provenance columns a filter can compare, beside the table's own (every table has them unless declared
 * with `rowLineage: false`; a filter on one it lacks is NOT_FOUND). The two JSON columns are left out.
 */
export interface ProvenanceColumns {
  _ava_updated_at: Date;
  _ava_run_id: string | null;
  _ava_rerun_of: string | null;
  _ava_workflow_name: string | null;
  _ava_node_id: string | null;
  _ava_node_name: string | null;
  _ava_node_slug: string | null;
}

type Filterable<Row> = Omit<Row, keyof ProvenanceColumns> & ProvenanceColumns;
type Col<Row> = Extract<keyof Filterable<Row>, string>;
type Val<Row, K extends Col<Row>> = unknown extends Filterable<Row>[K]
  ? Scalar // rows of an Arrow-schema table are untyped
  :
      | Extract<NonNullable<Filterable<Row>[K]>, Scalar>
      | (NonNullable<Filterable<Row>[K]> extends number ? bigint : never);

/** Builders typed by the table's rows: `(w) => w.and(w.gte("ts", since), w.in("channel", ["a", "b"]))`. */
export interface Where<Row> {
  eq<K extends Col<Row>>(column: K, value: Val<Row, K>): Predicate;
  ne<K extends Col<Row>>(column: K, value: Val<Row, K>): Predicate;
  lt<K extends Col<Row>>(column: K, value: Val<Row, K>): Predicate;
  lte<K extends Col<Row>>(column: K, value: Val<Row, K>): Predicate;
  gt<K extends Col<Row>>(column: K, value: Val<Row, K>): Predicate;
  gte<K extends Col<Row>>(column: K, value: Val<Row, K>): Predicate;
  between<K extends Col<Row>>(column: K, low: Val<Row, K>, high: Val<Row, K>): Predicate;
  in<K extends Col<Row>>(column: K, values: readonly Val<Row, K>[]): Predicate;
  isNull(column: Col<Row> | `_ava_${string}`): Predicate;
  notNull(column: Col<Row> | `_ava_${string}`): Predicate;
  and(...args: Predicate[]): Predicate;
  or(...args: Predicate[]): Predicate;
}

const cmp =
  (op: Comparison) =>
  (column: string, value: Scalar): Predicate => ({ op, column, value });

/** Untyped builders; a table's scan callback receives the same object, typed by its rows. */
export const where: Where<Record<string, Scalar | null>> = {
  eq: cmp("eq"),
  ne: cmp("ne"),
  lt: cmp("lt"),
  lte: cmp("lte"),
  gt: cmp("gt"),
  gte: cmp("gte"),
  between: (column: string, low: Scalar, high: Scalar) => ({
    op: "and",
    args: [cmp("gte")(column, low), cmp("lte")(column, high)],
  }),
  in: (column: string, values: readonly Scalar[]) => ({ op: "in", column, values }),
  isNull: (column: string) => ({ op: "isNull", column }),
  notNull: (column: string) => ({ op: "notNull", column }),
  and: (...args: Predicate[]) => ({ op: "and", args }),
  or: (...args: Predicate[]) => ({ op: "or", args }),
};

export function predicateColumns(p: Predicate, out = new Set<string>()): Set<string> {
  if (isGroup(p)) for (const a of p.args) predicateColumns(a, out);
  else out.add(p.column);
  return out;
}

/** How a column's values compare: the raw Arrow value (bigint for Int64 and timestamps) or a JS scalar. */
type Comparable = string | number | bigint | boolean;

const MICROS_PER_MS = [undefined, 1n, 1000n, 1_000_000n] as const; // by TimeUnit: s, ms, us, ns

/** Checks the predicate against the schema and turns its values into the columns' comparable form. */
export function bindPredicate(p: Predicate, schema: A.Schema, table: string): Predicate {
  if (isGroup(p)) {
    if (!Array.isArray(p.args))
      throw new AvaError("INVALID_ARGUMENT", `filter "${p.op}" needs an array of predicates`);
    return { op: p.op, args: p.args.map((a) => bindPredicate(a, schema, table)) };
  }
  const field = schema.fields.find((f) => f.name === p.column);
  if (!field)
    throw new AvaError(
      "NOT_FOUND",
      `filter column "${p.column}" is not in table ${table}${why(p.column, schema)}`,
    );
  if (isNullCheck(p)) return p;
  const bind = (v: Scalar): Comparable => toComparable(v, field, table);
  if (p.op === "in") return { op: "in", column: p.column, values: p.values.map(bind) };
  if (!["eq", "ne", "lt", "lte", "gt", "gte"].includes(p.op))
    throw new AvaError("INVALID_ARGUMENT", `unknown filter op ${JSON.stringify(p.op)}`);
  return { op: p.op, column: p.column, value: bind(p.value) };
}

/** For a missing `_ava_*` column: why the table lacks it. */
function why(column: string, schema: A.Schema): string {
  if (!isProvenanceColumn(column)) return "";
  const provenance = schema.fields.filter((f) => isProvenanceColumn(f.name)).map((f) => f.name);
  return provenance.length === 0
    ? " (declared with rowLineage: false, it has no provenance columns)"
    : ` (its provenance columns: ${provenance.join(", ")})`;
}

function toComparable(v: Scalar, field: A.Field, table: string): Comparable {
  const t = field.type;
  const bad = () =>
    new AvaError(
      "INVALID_ARGUMENT",
      `filter on ${table}.${field.name} (${t}): cannot compare with ${describeValue(v)}`,
    );
  if (A.DataType.isTimestamp(t)) {
    if (typeof v === "bigint") return v;
    if (!(v instanceof Date)) throw bad();
    const ms = BigInt(v.getTime());
    return t.unit === A.TimeUnit.SECOND ? ms / 1000n : ms * MICROS_PER_MS[t.unit]!;
  }
  if (A.DataType.isInt(t) || A.DataType.isFloat(t)) {
    if (typeof v === "number" || typeof v === "bigint") return v;
    throw bad();
  }
  if (A.DataType.isUtf8(t) || A.DataType.isDictionary(t)) {
    if (typeof v === "string") return v;
    throw bad();
  }
  if (A.DataType.isBool(t) && typeof v === "boolean") return v;
  throw bad();
}

function compare(a: Comparable, b: Comparable): number | undefined {
  if (typeof a === "number" && Number.isNaN(a)) return undefined;
  if (typeof b === "number" && Number.isNaN(b)) return undefined;
  return a < b ? -1 : a > b ? 1 : 0;
}

function test(op: Comparison, c: number | undefined): boolean {
  if (c === undefined) return op === "ne";
  switch (op) {
    case "eq":
      return c === 0;
    case "ne":
      return c !== 0;
    case "lt":
      return c < 0;
    case "lte":
      return c <= 0;
    case "gt":
      return c > 0;
    case "gte":
      return c >= 0;
  }
}

/** False only when no row of a file with these stats can match. */
export function mayMatch(p: Predicate, stats: Record<string, ColumnStats>, rowCount: number): boolean {
  if (isGroup(p))
    return p.op === "and"
      ? p.args.every((a) => mayMatch(a, stats, rowCount))
      : p.args.some((a) => mayMatch(a, stats, rowCount));
  const s = stats[p.column];
  if (!s) return true;
  if (isNullCheck(p)) return p.op === "isNull" ? s.nullCount > 0 : s.nullCount < rowCount;
  const min = fromStat(s.min);
  const max = fromStat(s.max);
  if (min === undefined || max === undefined) return s.nullCount < rowCount; // all null, or no usable bounds
  const within = (v: Comparable) => (compare(v, min) ?? 0) >= 0 && (compare(v, max) ?? 0) <= 0;
  if (p.op === "in") return p.values.some((v) => within(v as Comparable));
  const v = p.value as Comparable;
  switch (p.op) {
    case "eq":
      return within(v);
    case "ne":
      return !(compare(min, max) === 0 && compare(min, v) === 0 && s.nullCount === 0);
    case "lt":
      return (compare(min, v) ?? -1) < 0;
    case "lte":
      return (compare(min, v) ?? -1) <= 0;
    case "gt":
      return (compare(max, v) ?? 1) > 0;
    case "gte":
      return (compare(max, v) ?? 1) >= 0;
  }
}

type Reader = (i: number) => Comparable | null;

function readerFor(vector: A.Vector): Reader {
  const t = vector.type as A.DataType;
  if ((A.DataType.isTimestamp(t) || (A.DataType.isInt(t) && t.bitWidth === 64)) && vector.data.length === 1) {
    const data = vector.data[0]!;
    const values = data.values as BigInt64Array;
    return (i) => (vector.isValid(i) ? values[data.offset + i]! : null);
  }
  return (i) => vector.get(i) as Comparable | null;
}

/** The row indexes of `batch` that satisfy a bound predicate. */
export function matchingRows(p: Predicate, batch: A.RecordBatch): Uint8Array {
  const readers = new Map<string, Reader>();
  const reader = (column: string) => {
    let r = readers.get(column);
    if (!r) {
      r = readerFor(batch.getChild(column)!);
      readers.set(column, r);
    }
    return r;
  };
  const evaluate = (q: Predicate, i: number): boolean => {
    if (isGroup(q))
      return q.op === "and" ? q.args.every((a) => evaluate(a, i)) : q.args.some((a) => evaluate(a, i));
    const v = reader(q.column)(i);
    if (isNullCheck(q)) return (v === null) === (q.op === "isNull");
    if (v === null) return false;
    if (q.op === "in") return q.values.some((x) => compare(v, x as Comparable) === 0);
    return test(q.op, compare(v, q.value as Comparable));
  };
  const mask = new Uint8Array(batch.numRows);
  for (let i = 0; i < batch.numRows; i++) mask[i] = evaluate(p, i) ? 1 : 0;
  return mask;
}
