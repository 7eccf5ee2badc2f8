// Builds the long table's record batches one Avro stream record at a time. Each record is copied into the
// open batch as soon as it is added, so the reader may decode the next record into the same buffers (its
// `reuse` mode); a batch closes at BATCH_POINTS points, which lets the Parquet encoder take the table a
// bounded batch at a time.
import * as A from "apache-arrow";
import { allNull, utf8Column } from "../util/arrow-columns.js";
import { ColumnMemory } from "../util/column-memory.js";
import type { AvroStreamRecord, AvroValue } from "./record.js";

/** Points per record batch; a longer record is a batch of its own. */
export const BATCH_POINTS = 65_536;

export interface BatchOptions {
  /** Maps a record's raw timestamps to epoch ns in place; absent when they already are. */
  mapTime: ((ns: BigInt64Array) => void) | undefined;
  /** Tags for keys a record does not set. */
  fill: Record<string, string>;
  /** Where the columns' buffers come from (default: new ones), for a caller that reuses them. */
  memory?: ColumnMemory;
}

/** Kinds other than double and long are rare in telemetry: their columns are built only when present. */
const OTHER_FIELDS = { string: 5, doubleArray: 6, stringArray: 7, json: 8 } as const;
type OtherKind = keyof typeof OTHER_FIELDS;

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

function* points(rec: AvroStreamRecord): Generator<AvroValue> {
  const v = rec.values;
  if (v.kind === "mixed") yield* v.values;
  else for (const value of v.values as Iterable<unknown>) yield { kind: v.kind, value } as AvroValue;
}

/**
 * A string column whose value repeats for a whole record (channel, tag set): an index per row into the
 * batch's dictionary. Writing the text itself on every row was a fifth of an ingest.
 */
class DictionaryColumn {
  readonly indices: Int32Array;
  readonly #values: string[] = [];
  readonly #ids = new Map<string, number>();

  constructor(capacity: number, memory: ColumnMemory) {
    this.indices = new Int32Array(memory.take(4 * capacity), 0, capacity);
  }

  /** Rows [row, row + n) hold `value`. */
  set(row: number, n: number, value: string): void {
    let id = this.#ids.get(value);
    if (id === undefined) {
      id = this.#values.push(value) - 1;
      this.#ids.set(value, id);
    }
    this.indices.fill(id, row, row + n);
  }

  finish(type: A.DataType, indices: Int32Array): A.Data {
    const dictionary = A.makeVector(utf8Column(this.#values));
    return A.makeData({
      type: type as A.Dictionary<A.Utf8, A.Int32>,
      length: indices.length,
      nullCount: 0,
      data: indices,
      dictionary,
    });
  }
}

/** One open batch: its columns sized for `capacity` points, filled record by record. */
class OpenBatch {
  readonly ns: BigInt64Array;
  readonly doubles: Float64Array;
  readonly isDouble: Uint8Array;
  longs: BigInt64Array | undefined;
  isLong: Uint8Array | undefined;
  rows = 0;
  nDouble = 0;
  nLong = 0;
  readonly channels: DictionaryColumn;
  readonly tags: DictionaryColumn;
  records = 0;
  readonly others: [row: number, point: AvroValue][] = [];

  constructor(
    readonly capacity: number,
    memory: ColumnMemory,
  ) {
    this.ns = new BigInt64Array(memory.take(8 * capacity), 0, capacity);
    this.doubles = new Float64Array(memory.take(8 * capacity), 0, capacity);
    const bitmap = Math.ceil(capacity / 8);
    this.isDouble = new Uint8Array(memory.take(bitmap, true), 0, bitmap);
    this.channels = new DictionaryColumn(capacity, memory);
    this.tags = new DictionaryColumn(capacity, memory);
  }

  add(rec: AvroStreamRecord, { mapTime, fill }: BatchOptions): void {
    const row = this.rows;
    const n = rec.timestamps.length;
    this.ns.set(rec.timestamps, row);
    mapTime?.(this.ns.subarray(row, row + n));
    this.channels.set(row, n, rec.channel);
    this.tags.set(row, n, JSON.stringify({ ...fill, ...rec.tags }));
    this.records++;
    this.rows += n;
    const v = rec.values;
    if (v.kind === "double") {
      this.doubles.set(v.values, row);
      setBits(this.isDouble, row, row + n);
      this.nDouble += n;
      return;
    }
    let at = row;
    for (const point of points(rec)) {
      if (point.kind === "double") {
        this.doubles[at] = point.value;
        this.isDouble[at >> 3]! |= 1 << (at & 7);
        this.nDouble++;
      } else if (point.kind === "long") {
        this.longs ??= new BigInt64Array(this.capacity);
        this.isLong ??= new Uint8Array(Math.ceil(this.capacity / 8));
        this.longs[at] = point.value;
        this.isLong[at >> 3]! |= 1 << (at & 7);
        this.nLong++;
      } else this.others.push([at, point]);
      at++;
    }
  }

  finish(schema: A.Schema): A.RecordBatch {
    const { rows } = this;
    const fields = schema.fields;
    const float = this.nDouble > 0;
    const long = this.nLong > 0;
    const children = [
      this.channels.finish(fields[0]!.type, this.#fit(this.channels.indices, rows)),
      A.makeData({
        type: fields[1]!.type as A.TimestampNanosecond,
        length: rows,
        nullCount: 0,
        data: this.#fit(this.ns, rows),
      }),
      this.tags.finish(fields[2]!.type, this.#fit(this.tags.indices, rows)),
      float
        ? A.makeData({
            type: new A.Float64(),
            length: rows,
            nullCount: rows - this.nDouble,
            nullBitmap: this.#fit(this.isDouble, Math.ceil(rows / 8)),
            data: this.#fit(this.doubles, rows),
          })
        : allNull(new A.Float64(), rows),
      long
        ? A.makeData({
            type: new A.Int64(),
            length: rows,
            nullCount: rows - this.nLong,
            nullBitmap: this.#fit(this.isLong!, Math.ceil(rows / 8)),
            data: this.#fit(this.longs!, rows),
          })
        : allNull(new A.Int64(), rows),
      ...(Object.keys(OTHER_FIELDS) as OtherKind[]).map((kind) =>
        this.#otherColumn(fields[OTHER_FIELDS[kind]]!.type, kind),
      ),
    ];
    const struct = A.makeData({ type: new A.Struct(fields), length: rows, nullCount: 0, children });
    return new A.RecordBatch(schema, struct);
  }

  /** The first `n` items: a view of a batch that filled up, a copy of one that closed mostly empty (a
   * small file) so that its table does not hold a whole batch's capacity. */
  #fit<T extends Uint8Array | Int32Array | Float64Array | BigInt64Array>(array: T, n: number): T {
    return (this.rows * 2 < this.capacity ? array.slice(0, n) : array.subarray(0, n)) as T;
  }

  #otherColumn(type: A.Utf8 | A.List, kind: OtherKind): A.Data {
    const mine = this.others.filter(([, point]) => point.kind === kind);
    if (mine.length === 0) return allNull(type, this.rows);
    const builder: A.Builder = A.makeBuilder({ type, nullValues: [null, undefined] });
    let next = 0;
    for (const [at, point] of mine) {
      for (; next < at; next++) builder.append(null);
      builder.append(point.value instanceof Float64Array ? Array.from(point.value) : point.value);
      next = at + 1;
    }
    for (; next < this.rows; next++) builder.append(null);
    return builder.finish().flush();
  }
}

/** Copies records into batches of about BATCH_POINTS points; `add` and `finish` give the closed batches. */
export class LongBatchBuilder {
  #open: OpenBatch | undefined;
  readonly #memory: ColumnMemory;

  constructor(
    private readonly schema: A.Schema,
    private readonly options: BatchOptions,
  ) {
    this.#memory = options.memory ?? new ColumnMemory();
  }

  /** Adds a record (copied now: its arrays may be reused afterwards); returns the batch it closed, if any. */
  add(rec: AvroStreamRecord): A.RecordBatch | undefined {
    const n = rec.timestamps.length;
    let closed: A.RecordBatch | undefined;
    if (this.#open && this.#open.rows + n > this.#open.capacity) closed = this.finish();
    this.#open ??= new OpenBatch(Math.max(BATCH_POINTS, n), this.#memory);
    this.#open.add(rec, this.options);
    return closed;
  }

  /** Closes the open batch; undefined when it has no records. */
  finish(): A.RecordBatch | undefined {
    const open = this.#open;
    this.#open = undefined;
    return open && open.records > 0 ? open.finish(this.schema) : undefined;
  }
}
