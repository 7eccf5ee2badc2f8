// Avro stream records -> one long Arrow table: a row per point with its channel, timestamp (epoch ns,
// UTC), tags (JSON) and its value in the column of its type (the other value columns are null). Ingest
// options follow Nominal's add_avro_stream: `tags` fill keys a record lacks (record tags win), and
// `timestampType` says what the file's numbers mean.
import * as A from "apache-arrow";
import { AvaError } from "../errors.js";
import { AVA_TYPE } from "../schema/metadata.js";
import { type AvroSource, openAvroStream, type ReadOptions } from "./read.js";
import type { AvroStreamRecord, AvroValue } from "./record.js";
import { allNull, repeatedUtf8 } from "../util/arrow-columns.js";
import type { TimestampUnit } from "./values.js";

const json = new Map([[AVA_TYPE, "json"]]);

/** The schema of the long table: declare a table with it to ingest Avro streams into. */
export const avroStreamArrowSchema = new A.Schema([
  new A.Field("channel", new A.Utf8(), false),
  new A.Field("timestamp", new A.TimestampNanosecond("UTC"), false),
  new A.Field("tags", new A.Utf8(), false, json),
  new A.Field("double", new A.Float64(), true),
  new A.Field("long", new A.Int64(), true),
  new A.Field("string", new A.Utf8(), true),
  new A.Field("double_array", new A.List(new A.Field("item", new A.Float64(), false)), true),
  new A.Field("string_array", new A.List(new A.Field("item", new A.Utf8(), false)), true),
  new A.Field("json", new A.Utf8(), true, json),
]);

export type TimestampType = TimestampUnit | { relative: TimestampUnit; start: Date | bigint };

export interface ToArrowOptions extends ReadOptions {
  /** Tags for keys a record does not set; the record's own tags win. */
  tags?: Record<string, string>;
  /** What the file's timestamps count: epoch units (default "ns") or units since `start`. */
  timestampType?: TimestampType;
}

const NS: Record<TimestampUnit, bigint> = { ns: 1n, us: 1_000n, ms: 1_000_000n, s: 1_000_000_000n };

/** Maps a record's raw timestamps to epoch ns in place; `undefined` when they already are (the default). */
function timestampMapper(type: TimestampType = "ns"): ((raw: BigInt64Array) => void) | undefined {
  if (typeof type === "string") {
    if (!(type in NS))
      throw new AvaError(
        "INVALID_ARGUMENT",
        `timestampType ${JSON.stringify(type)}: use ns, us, ms, s or { relative, start }`,
      );
    const f = NS[type];
    if (f === 1n) return undefined;
    return (raw) => {
      for (let i = 0; i < raw.length; i++) raw[i] = raw[i]! * f;
    };
  }
  if (!(type.relative in NS))
    throw new AvaError(
      "INVALID_ARGUMENT",
      `timestampType.relative ${JSON.stringify(type.relative)}: use ns, us, ms or s`,
    );
  const f = NS[type.relative];
  const start = type.start instanceof Date ? BigInt(type.start.getTime()) * NS.ms : type.start;
  return (raw) => {
    for (let i = 0; i < raw.length; i++) raw[i] = start + raw[i]! * f;
  };
}

function* points(rec: AvroStreamRecord): Generator<AvroValue> {
  const v = rec.values;
  if (v.kind === "mixed") yield* v.values;
  else for (const value of v.values as Iterable<unknown>) yield { kind: v.kind, value } as AvroValue;
}

/** Sets bits [from, to) of a validity bitmap: whole bytes at once between the partial ends. */
function setBits(bitmap: Uint8Array, from: number, to: number): void {
  let k = from;
  for (; k < to && (k & 7) !== 0; k++) bitmap[k >> 3]! |= 1 << (k & 7);
  const wholeEnd = to & ~7;
  if (k < wholeEnd) {
    bitmap.fill(0xff, k >> 3, wholeEnd >> 3);
    k = wholeEnd;
  }
  for (; k < to; k++) bitmap[k >> 3]! |= 1 << (k & 7);
}

/**
 * Points per record batch of the long table. Bounded batches let the Parquet encoder take the table a
 * batch at a time; one batch of a whole file made Arrow's IPC writer re-copy every null bitmap per slice.
 */
const BATCH_POINTS = 65_536;

interface BatchOptions {
  mapTime: ((raw: BigInt64Array) => void) | undefined;
  fill: Record<string, string>;
}

/** Groups records into runs of about BATCH_POINTS points (a longer record is a batch of its own). */
function* batchesOf(records: Iterable<AvroStreamRecord>, options: BatchOptions): Generator<A.RecordBatch> {
  let group: AvroStreamRecord[] = [];
  let points = 0;
  for (const rec of records) {
    if (points > 0 && points + rec.timestamps.length > BATCH_POINTS) {
      yield recordsToBatch(group, options);
      group = [];
      points = 0;
    }
    group.push(rec);
    points += rec.timestamps.length;
  }
  if (group.length > 0) yield recordsToBatch(group, options);
}

function batchOptions(options: Omit<ToArrowOptions, keyof ReadOptions>): BatchOptions {
  return { mapTime: timestampMapper(options.timestampType), fill: options.tags ?? {} };
}

/** Builds the long table from records, in memory. */
export function recordsToArrow(
  records: Iterable<AvroStreamRecord>,
  options: Omit<ToArrowOptions, keyof ReadOptions> = {},
): A.Table {
  return new A.Table(avroStreamArrowSchema, [...batchesOf(records, batchOptions(options))]);
}

/** Reads a whole Avro stream file into the long table, converting as the blocks arrive. */
export async function avroStreamToArrow(source: AvroSource, options: ToArrowOptions = {}): Promise<A.Table> {
  const convert = batchOptions(options); // a bad timestampType is refused before the file is read
  const batches: A.RecordBatch[] = [];
  let group: AvroStreamRecord[] = [];
  let points = 0;
  for await (const rec of (await openAvroStream(source, options)).records()) {
    group.push(rec);
    points += rec.timestamps.length;
    if (points < BATCH_POINTS) continue;
    batches.push(...batchesOf(group, convert));
    group = [];
    points = 0;
  }
  batches.push(...batchesOf(group, convert));
  return new A.Table(avroStreamArrowSchema, batches);
}

function recordsToBatch(list: AvroStreamRecord[], { mapTime, fill }: BatchOptions): A.RecordBatch {
  const fields = avroStreamArrowSchema.fields;
  const counts = list.map((r) => r.timestamps.length);
  const rows = counts.reduce((a, b) => a + b, 0);

  const ns = new BigInt64Array(rows);
  const doubles = new Float64Array(rows);
  const longs = new BigInt64Array(rows);
  const isDouble = new Uint8Array(Math.ceil(rows / 8));
  const isLong = new Uint8Array(Math.ceil(rows / 8));
  let nDouble = 0;
  let nLong = 0;
  // Kinds other than double and long are rare in telemetry: their columns are built only when present.
  const others: Partial<Record<AvroValue["kind"], A.Builder>> = {};
  const otherFields = { string: 5, doubleArray: 6, stringArray: 7, json: 8 } as const;
  const otherRows: [number, AvroValue][] = [];

  let row = 0;
  for (const rec of list) {
    ns.set(rec.timestamps, row);
    mapTime?.(ns.subarray(row, row + rec.timestamps.length));
    const v = rec.values;
    if (v.kind === "double") {
      doubles.set(v.values, row);
      setBits(isDouble, row, row + v.values.length);
      nDouble += v.values.length;
      row += v.values.length;
      continue;
    }
    for (const point of points(rec)) {
      if (point.kind === "double") {
        doubles[row] = point.value;
        isDouble[row >> 3]! |= 1 << (row & 7);
        nDouble++;
      } else if (point.kind === "long") {
        longs[row] = point.value;
        isLong[row >> 3]! |= 1 << (row & 7);
        nLong++;
      } else otherRows.push([row, point]);
      row++;
    }
  }
  for (const [, point] of otherRows)
    others[point.kind] ??= A.makeBuilder({
      type: fields[otherFields[point.kind as keyof typeof otherFields]]!.type,
      nullValues: [null, undefined],
    });
  const otherData = (Object.keys(otherFields) as (keyof typeof otherFields)[]).map((kind) => {
    const type = fields[otherFields[kind]]!.type;
    const builder = others[kind];
    if (!builder) return allNull(type as A.Utf8 | A.List, rows);
    let next = 0;
    for (const [at, point] of otherRows) {
      if (point.kind !== kind) continue;
      for (; next < at; next++) builder.append(null);
      builder.append(point.value instanceof Float64Array ? Array.from(point.value) : point.value);
      next = at + 1;
    }
    for (; next < rows; next++) builder.append(null);
    return builder.finish().flush();
  });

  const children = [
    repeatedUtf8(
      list.map((r) => r.channel),
      counts,
    ),
    A.makeData({ type: fields[1]!.type as A.TimestampNanosecond, length: rows, nullCount: 0, data: ns }),
    repeatedUtf8(
      list.map((r) => JSON.stringify({ ...fill, ...r.tags })),
      counts,
    ),
    A.makeData({
      type: new A.Float64(),
      length: rows,
      nullCount: rows - nDouble,
      nullBitmap: isDouble,
      data: doubles,
    }),
    A.makeData({
      type: new A.Int64(),
      length: rows,
      nullCount: rows - nLong,
      nullBitmap: isLong,
      data: longs,
    }),
    ...otherData,
  ];
  const struct = A.makeData({ type: new A.Struct(fields), length: rows, nullCount: 0, children });
  return new A.RecordBatch(avroStreamArrowSchema, struct);
}
