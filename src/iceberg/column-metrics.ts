// Column metrics of a data file as a manifest carries them (value_counts, null_value_counts, lower_bounds,
// upper_bounds), taken from the statistics the catalog already keeps per data file — no file is read again.
// Bounds use Iceberg's single-value binary serialization (table spec, Appendix D): little-endian ints,
// longs (timestamps: microseconds), floats and doubles, one byte for a boolean, UTF-8 bytes for a string.
// column_sizes comes from the Parquet footer of files written with field ids, read once when the file is
// written (withColumnSizes), never from the store again.
import type { ColumnStats, StatValue } from "../storage/catalog/model.js";
import { columnSizes } from "../parquet/footer-sizes.js";
import { fromStat } from "../table/stats.js";
import type { IcebergSchema } from "./schema.js";

/** An Iceberg map<int, T> as Avro writes it: an array of key/value records. */
export type IdMap<T> = { key: number; value: T }[];

export interface ColumnMetrics {
  column_sizes: IdMap<number>;
  value_counts: IdMap<number>;
  null_value_counts: IdMap<number>;
  lower_bounds: IdMap<Uint8Array>;
  upper_bounds: IdMap<Uint8Array>;
}

const encoder = new TextEncoder();

/**
 * Numbers are set in one scratch buffer and copied out byte by byte: a bound is a few bytes, and V8 keeps
 * such small typed arrays on its heap unless their `.buffer` is asked for (a DataView over each one did),
 * which then costs an ArrayBuffer of its own — most of a manifest's encoding time.
 */
const scratch = new DataView(new ArrayBuffer(8));
const scratchBytes = new Uint8Array(scratch.buffer);

function fixed(size: number, set: (view: DataView) => void): Uint8Array {
  set(scratch);
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = scratchBytes[i]!;
  return bytes;
}

/** UTF-8 bytes; short ASCII text (most bounds) without TextEncoder's ArrayBuffer per call. */
function utf8(s: string): Uint8Array {
  if (s.length > 64) return encoder.encode(s);
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return encoder.encode(s);
    bytes[i] = c;
  }
  return bytes;
}

/** A lower bound cut in a surrogate pair would encode as U+FFFD, above the value it bounds: drop the half. */
function wholeCodePoints(s: string): string {
  const last = s.charCodeAt(s.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? s.slice(0, -1) : s;
}

/** A bound in the type's binary form; undefined when the stat does not fit the type (never guess a bound). */
export function boundBytes(
  type: string,
  stat: StatValue | undefined,
  side: "lower" | "upper",
): Uint8Array | undefined {
  const v = fromStat(stat);
  if (v === undefined) return undefined;
  switch (type) {
    case "boolean":
      return typeof v === "boolean" ? new Uint8Array([v ? 1 : 0]) : undefined;
    case "int":
      return typeof v === "number" && Number.isInteger(v)
        ? fixed(4, (d) => d.setInt32(0, v, true))
        : undefined;
    case "long":
    case "timestamp":
    case "timestamptz":
      return typeof v === "bigint" || (typeof v === "number" && Number.isInteger(v))
        ? fixed(8, (d) => d.setBigInt64(0, BigInt(v), true))
        : undefined;
    case "float":
      return typeof v === "number" ? fixed(4, (d) => d.setFloat32(0, v, true)) : undefined;
    case "double":
      return typeof v === "number" ? fixed(8, (d) => d.setFloat64(0, v, true)) : undefined;
    case "string":
      if (typeof v !== "string") return undefined;
      return utf8(side === "lower" ? wholeCodePoints(v) : v);
    default:
      return undefined;
  }
}

/**
 * The metrics of one file, by the field ids of the schema version it was written with (`schema`), so a
 * renamed column's stats land on its id. Stats are kept for top-level scalar columns only; provenance
 * columns are among them.
 */
export function columnMetrics(
  stats: Readonly<Record<string, ColumnStats>> | undefined,
  rowCount: number,
  schema: IcebergSchema,
): ColumnMetrics {
  const out: ColumnMetrics = {
    column_sizes: [],
    value_counts: [],
    null_value_counts: [],
    lower_bounds: [],
    upper_bounds: [],
  };
  if (!stats) return out;
  for (const field of schema.fields) {
    const s = stats[field.name];
    if (!s || typeof field.type !== "string") continue;
    if (s.bytes !== undefined) out.column_sizes.push({ key: field.id, value: s.bytes });
    out.value_counts.push({ key: field.id, value: rowCount });
    out.null_value_counts.push({ key: field.id, value: s.nullCount });
    const lower = boundBytes(field.type, s.min, "lower");
    const upper = boundBytes(field.type, s.max, "upper");
    if (lower) out.lower_bounds.push({ key: field.id, value: lower });
    if (upper) out.upper_bounds.push({ key: field.id, value: upper });
  }
  return out;
}

/**
 * `stats` with each column's bytes in `parquet` (the file just encoded from the same rows), so its
 * manifests can give column_sizes. Columns without stats (nested ones) get none.
 */
export function withColumnSizes(
  stats: Record<string, ColumnStats>,
  parquet: Uint8Array,
): Record<string, ColumnStats> {
  for (const [column, bytes] of columnSizes(parquet)) {
    const s = stats[column];
    if (s) s.bytes = bytes;
  }
  return stats;
}
