// The streaming writer's pending points, column by column: one series per (channel, tags), its timestamps
// and values in growable typed arrays (strings, JSON text and arrays in a plain array). A call writes its
// points past `length` first ("staging") and moves `length` only once every point of the call has passed
// its checks, so a refused call leaves nothing behind and no point is ever boxed into an object.
import type { AvroStreamRecord, RecordValues } from "./record.js";
import type { ValueKind } from "./schema.js";

/** A series' buffers shrink back after a flush once they are this much larger than the batches. */
const SHRINK_FACTOR = 4;
const MIN_CAPACITY = 1024;

export class Series {
  /** Points committed: those past it are staged by a call still being checked. */
  length = 0;
  times = new BigInt64Array(MIN_CAPACITY);
  doubles = new Float64Array(0);
  longs = new BigInt64Array(0);
  /** Values of the other kinds: strings, JSON text, Float64Arrays, string arrays. */
  items: unknown[] = [];
  /** Registered in the writer's table (a series made by a refused call never is). */
  registered = false;
  /** Flushes since a point last arrived: a series idle through a whole flush interval is dropped. */
  idle = 0;
  readonly tagEntries: [string, string][];

  constructor(
    readonly key: string,
    readonly channel: string,
    /** A copy, taken when the series is made: later changes to the caller's object do not leak in. */
    readonly tags: Readonly<Record<string, string>>,
    public kind: ValueKind,
  ) {
    this.tagEntries = Object.entries(tags);
  }

  /** Are these the series' tags? (`tags` undefined means none.) Allocates nothing. */
  hasTags(tags: Record<string, unknown> | undefined): boolean {
    if (tags === undefined) return this.tagEntries.length === 0;
    let n = 0;
    for (const k in tags) {
      const v = tags[k];
      if (typeof v !== "string" || this.tags[k] !== v) return false; // a string found is an own tag
      n++;
    }
    return n === this.tagEntries.length;
  }

  /** Switches an empty series to another value kind (a pending series keeps its kind: the writer checks). */
  setKind(kind: ValueKind): void {
    if (this.length > 0) throw new Error(`series ${this.channel} has pending ${this.kind} values`);
    this.kind = kind;
  }

  /** Room for `n` more points past `length`, in the timestamp column and the value column of the kind. */
  reserve(n: number): void {
    const need = this.length + n;
    if (need > this.times.length) this.times = grow(this.times, need, this.length);
    if (this.kind === "double" && need > this.doubles.length)
      this.doubles = grow(this.doubles, need, this.length);
    if (this.kind === "long" && need > this.longs.length) this.longs = grow(this.longs, need, this.length);
  }

  /** Keeps `n` staged points. */
  commit(n: number): void {
    this.length += n;
    this.idle = 0;
  }

  /** Drops what a refused call staged (only the plain array holds anything past `length`). */
  abort(): void {
    if (this.items.length > this.length) this.items.length = this.length;
  }

  /** Points [from, to) as a record: views of the columns, valid until the series is written to again. */
  record(from: number, to: number): AvroStreamRecord {
    const timestamps = this.times.subarray(from, to);
    let values: RecordValues;
    if (this.kind === "double") values = { kind: "double", values: this.doubles.subarray(from, to) };
    else if (this.kind === "long") values = { kind: "long", values: this.longs.subarray(from, to) };
    else values = { kind: this.kind, values: this.items.slice(from, to) } as RecordValues;
    return { channel: this.channel, timestamps, values, tags: this.tags };
  }

  /** After a flush wrote every point: empty, keeping buffers of a sensible size for the next batch. */
  clear(batchPoints: number): void {
    this.length = 0;
    this.items.length = 0;
    const keep = Math.max(MIN_CAPACITY, batchPoints) * SHRINK_FACTOR;
    if (this.times.length > keep) this.times = new BigInt64Array(MIN_CAPACITY);
    if (this.doubles.length > keep) this.doubles = new Float64Array(0);
    if (this.longs.length > keep) this.longs = new BigInt64Array(0);
  }
}

function grow<T extends Float64Array | BigInt64Array>(column: T, need: number, keep: number): T {
  const next = new (column.constructor as new (n: number) => T)(
    Math.max(need, column.length * 2, MIN_CAPACITY),
  );
  next.set(column.subarray(0, keep) as never);
  return next;
}
