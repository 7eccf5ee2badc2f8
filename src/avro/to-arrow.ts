// Avro stream records -> one long Arrow table: a row per point with its channel and tags (JSON text), both
// dictionary-encoded, its timestamp (epoch ns, UTC) and its value in the column of its type (the other
// value columns are null). Ingest options follow Nominal's add_avro_stream: `tags` fill keys a record lacks
// (record tags win), and `timestampType` says what the file's numbers mean.
import * as A from "apache-arrow";
import { AvaError } from "../errors.js";
import { AVA_TYPE } from "../schema/metadata.js";
import type { ColumnMemory } from "../util/column-memory.js";
import { LongBatchBuilder } from "./long-batch.js";
import { type AvroSource, openAvroStream, type ReadOptions } from "./read.js";
import type { AvroStreamRecord } from "./record.js";
import type { TimestampUnit } from "./values.js";

const json = new Map([[AVA_TYPE, "json"]]);

/** The schema of the long table: declare a table with it to ingest Avro streams into. */
export const avroStreamArrowSchema = new A.Schema([
  new A.Field("channel", new A.Dictionary(new A.Utf8(), new A.Int32()), false),
  new A.Field("timestamp", new A.TimestampNanosecond("UTC"), false),
  new A.Field("tags", new A.Dictionary(new A.Utf8(), new A.Int32()), false, json),
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

function batchBuilder(
  options: Omit<ToArrowOptions, keyof ReadOptions>,
  memory?: ColumnMemory,
): LongBatchBuilder {
  return new LongBatchBuilder(avroStreamArrowSchema, {
    mapTime: timestampMapper(options.timestampType),
    fill: options.tags ?? {},
    ...(memory && { memory }),
  });
}

/** Builds the long table from records, in memory. */
export function recordsToArrow(
  records: Iterable<AvroStreamRecord>,
  options: Omit<ToArrowOptions, keyof ReadOptions> = {},
): A.Table {
  const builder = batchBuilder(options);
  const batches: A.RecordBatch[] = [];
  for (const rec of records) {
    const closed = builder.add(rec);
    if (closed) batches.push(closed);
  }
  const last = builder.finish();
  if (last) batches.push(last);
  return new A.Table(avroStreamArrowSchema, batches);
}

/** Reads a whole Avro stream file into the long table, converting record by record as the blocks arrive. */
export async function avroStreamToArrow(source: AvroSource, options: ToArrowOptions = {}): Promise<A.Table> {
  return readLongTable(source, options, batchBuilder(options)); // a bad timestampType is refused first
}

/**
 * `avroStreamToArrow` with its columns in buffers from `memory`: for a caller that writes the table and
 * drops it, then gives the buffers back (`memory.release()`) to the next file's.
 */
export function avroStreamToArrowIn(
  source: AvroSource,
  options: ToArrowOptions,
  memory: ColumnMemory,
): Promise<A.Table> {
  return readLongTable(source, options, batchBuilder(options, memory));
}

async function readLongTable(
  source: AvroSource,
  options: ReadOptions,
  builder: LongBatchBuilder,
): Promise<A.Table> {
  const batches: A.RecordBatch[] = [];
  // Each record is copied into the open batch at once, so the reader can decode every record into the
  // same buffers.
  for await (const rec of (await openAvroStream(source, options)).records({ reuse: true })) {
    const closed = builder.add(rec);
    if (closed) batches.push(closed);
  }
  const last = builder.finish();
  if (last) batches.push(last);
  return new A.Table(avroStreamArrowSchema, batches);
}
