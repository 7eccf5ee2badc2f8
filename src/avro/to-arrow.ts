// Avro stream records -> one long Arrow table: a row per point with its channel, timestamp (epoch ns,
// UTC), tags (JSON) and its value in the column of its type (the other value columns are null). Ingest
// options follow Nominal's add_avro_stream: `tags` fill keys a record lacks (record tags win), and
// `timestampType` says what the file's numbers mean.
import * as A from "apache-arrow";
import { AvaError } from "../errors.js";
import { AVA_TYPE } from "../schema/metadata.js";
import { type AvroSource, openAvroStream, type ReadOptions } from "./read.js";
import type { AvroStreamRecord, AvroValue } from "./record.js";
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

function timestampMapper(type: TimestampType = "ns"): (raw: bigint) => bigint {
  if (typeof type === "string") {
    if (!(type in NS))
      throw new AvaError(
        "INVALID_ARGUMENT",
        `timestampType ${JSON.stringify(type)}: use ns, us, ms, s or { relative, start }`,
      );
    const f = NS[type];
    return (raw) => raw * f;
  }
  if (!(type.relative in NS))
    throw new AvaError(
      "INVALID_ARGUMENT",
      `timestampType.relative ${JSON.stringify(type.relative)}: use ns, us, ms or s`,
    );
  const f = NS[type.relative];
  const start = type.start instanceof Date ? BigInt(type.start.getTime()) * NS.ms : type.start;
  return (raw) => start + raw * f;
}

function* points(rec: AvroStreamRecord): Generator<AvroValue> {
  const v = rec.values;
  if (v.kind === "mixed") yield* v.values;
  else for (const value of v.values as Iterable<unknown>) yield { kind: v.kind, value } as AvroValue;
}

/** Builds the long table from records (in memory; for files larger than memory, convert block by block). */
export function recordsToArrow(
  records: Iterable<AvroStreamRecord>,
  options: Omit<ToArrowOptions, keyof ReadOptions> = {},
): A.Table {
  const mapTime = timestampMapper(options.timestampType);
  const fill = options.tags ?? {};
  const fields = avroStreamArrowSchema.fields;
  const build = (i: number) => A.makeBuilder({ type: fields[i]!.type, nullValues: [null, undefined] });
  const channel = build(0);
  const tags = build(2);
  const column: Record<AvroValue["kind"], A.Builder> = {
    double: build(3),
    long: build(4),
    string: build(5),
    doubleArray: build(6),
    stringArray: build(7),
    json: build(8),
  };
  const times: BigInt64Array[] = [];
  let rows = 0;
  for (const rec of records) {
    const tagText = JSON.stringify({ ...fill, ...rec.tags });
    times.push(rec.timestamps.map(mapTime));
    for (const point of points(rec)) {
      channel.append(rec.channel);
      tags.append(tagText);
      for (const [kind, b] of Object.entries(column)) {
        b.append(
          kind === point.kind
            ? point.value instanceof Float64Array
              ? Array.from(point.value)
              : point.value
            : null,
        );
      }
      rows++;
    }
  }
  const ns = new BigInt64Array(rows);
  let at = 0;
  for (const t of times) {
    ns.set(t, at);
    at += t.length;
  }
  const timestamp = A.makeData({
    type: fields[1]!.type as A.TimestampNanosecond,
    length: rows,
    nullCount: 0,
    data: ns,
  });
  const children = [
    channel.finish().flush(),
    timestamp,
    tags.finish().flush(),
    ...Object.values(column).map((b) => b.finish().flush()),
  ];
  const struct = A.makeData({ type: new A.Struct(fields), length: rows, nullCount: 0, children });
  return new A.Table(avroStreamArrowSchema, [new A.RecordBatch(avroStreamArrowSchema, struct)]);
}

/** Reads a whole Avro stream file into the long table. */
export async function avroStreamToArrow(source: AvroSource, options: ToArrowOptions = {}): Promise<A.Table> {
  const records: AvroStreamRecord[] = [];
  for await (const r of (await openAvroStream(source, options)).records()) records.push(r);
  return recordsToArrow(records, options);
}
