// `createWriter(sink, options)`: the enqueue API of nominal-streaming, writing an Avro stream file. Points
// are buffered column by column per series (channel, tags) — one value type per series while points are
// pending — and written when `maxBatchPoints` are pending, `maxDelayMs` after the first pending point, or
// on flush()/close(), as blocks of at most `maxBatchPoints` points. A bad call is refused before any of its
// points are buffered. A failed background write is latched and reported by the next call.
import { AvaError, toAvaError } from "../errors.js";
import { ByteWriter } from "./binary.js";
import { type AvroCodec, checkCodec, checkSnappyMode } from "./codecs.js";
import type { SnappyMode } from "./snappy.js";
import { BlockEncoder, streamHeader } from "./encode.js";
import { Series } from "./series.js";
import type { ValueKind } from "./schema.js";
import { concatBytes } from "../util/bytes.js";
import {
  checkTags,
  classify,
  kindName,
  type StreamValue,
  type Timestamp,
  type TimestampUnit,
  toNanos,
} from "./values.js";

/**
 * Where the file goes. `write` gets each piece once; the bytes may be reused by the writer once the
 * returned promise settles, so a sink that keeps them copies them.
 */
export interface AvroSink {
  write(bytes: Uint8Array): Promise<void>;
  close?(): Promise<void>;
}

export interface WriterOptions {
  /** Block codec. Default "snappy", as nominal-streaming writes. */
  codec?: AvroCodec;
  /**
   * How snappy blocks are compressed. "fast" (default) takes only matches of 8 bytes or more: on epoch-ns
   * timestamps and random-walk doubles its compressor is ~100× faster than "small"'s (the whole encoding
   * ~4×), and "small" files are ~11% smaller there (it takes every match of 4 bytes or more, as snappy
   * itself does). Both are plain snappy: any reader reads either. Measurements: the README's live-stream
   * section.
   */
  snappy?: SnappyMode;
  /** Flush once this many points are pending; no block holds more. Default 250,000 (nominal-streaming's request size). */
  maxBatchPoints?: number;
  /** Flush this long after the first pending point. Default 100 ms. */
  maxDelayMs?: number;
  /** The unit of plain-number timestamps; without it they are refused (a double cannot hold epoch ns). */
  timestampUnit?: TimestampUnit;
}

type Values = readonly StreamValue[] | Float64Array | BigInt64Array;

/** Blocks are cut at this many points whatever maxBatchPoints says, so that readers' block limit holds. */
const MAX_BLOCK_POINTS = 1 << 20;
/** Up to this many tag sets on one channel, a call finds its series by comparing tags; past it, by key. */
const FEW_TAG_SETS = 8;

function refuse(detail: string): never {
  throw new AvaError("INVALID_ARGUMENT", `${detail}; nothing was enqueued`);
}

const whereOf = (channel: string) => `channel ${JSON.stringify(channel)}`;

/** Names a point in a refusal. (Built only to refuse: hot paths create no strings and no closures.) */
const pointOf = (channel: string, i: number) => `${whereOf(channel)} point ${i}`;

/** The kind of one value, without boxing numbers and bigints. */
function kindOf(v: unknown, channel: string, i: number): ValueKind {
  if (typeof v === "number") return "double";
  if (typeof v === "bigint") return "long";
  return classify(v, pointOf(channel, i)).kind;
}

/** Refuses point `i` of a batch of `s.kind` values: it has no type, or another one. */
function mixed(s: Series, channel: string, v: unknown, i: number): never {
  const kind = kindOf(v, channel, i); // refuses what has no type at all
  return refuse(
    `${whereOf(channel)}: point ${i} is a ${kindName(kind)} in a batch of ${kindName(s.kind)} values`,
  );
}

/**
 * Block buffers written out and free again, shared by every writer of this thread (bounded in bytes): a
 * writer's blocks land in memory already paged in, even its first ones. Touching fresh memory costs more
 * than encoding into it — in Chromium most — and a burst of enqueues fills several blocks before the
 * first is written.
 */
const freeBlockBuffers: ByteWriter[] = [];
const FREE_BLOCK_BYTES = 32 * 1024 * 1024;
let freeBlockBytes = 0;

function takeBlockBuffer(capacity: number): ByteWriter {
  const i = freeBlockBuffers.findIndex((w) => w.capacity >= capacity);
  if (i < 0) return new ByteWriter(capacity);
  const [w] = freeBlockBuffers.splice(i, 1);
  freeBlockBytes -= w!.capacity;
  return w!;
}

function giveBackBlockBuffer(w: ByteWriter): void {
  w.reset();
  if (freeBlockBytes + w.capacity > FREE_BLOCK_BYTES) return;
  freeBlockBuffers.push(w);
  freeBlockBytes += w.capacity;
}

/**
 * Block encoders free again, shared by every writer of this thread (bounded in bytes), for the same reason:
 * a compressing encoder grows a records buffer and a compression buffer to a block's size, and a writer
 * made for each batch (a live stream cuts one a batch) would otherwise grow both from scratch, in fresh
 * memory, every time — measured as most of the live stream's encoding time.
 */
const freeEncoders: BlockEncoder[] = [];
const FREE_ENCODER_BYTES = 32 * 1024 * 1024;
let freeEncoderBytes = 0;

function takeEncoder(codec: AvroCodec, snappy: SnappyMode, sync: Uint8Array, out: ByteWriter): BlockEncoder {
  const i = freeEncoders.findIndex((e) => e.codec === codec && e.snappy === snappy);
  if (i < 0) return new BlockEncoder(codec, sync, out, out.capacity, snappy);
  const [encoder] = freeEncoders.splice(i, 1);
  freeEncoderBytes -= encoder!.retainedBytes;
  encoder!.sync = sync;
  encoder!.out = out;
  return encoder!;
}

/** The encoder alone: its `out` is given back on its own, once written. */
function giveBackEncoder(encoder: BlockEncoder): void {
  const bytes = encoder.retainedBytes;
  if (freeEncoderBytes + bytes > FREE_ENCODER_BYTES) return;
  freeEncoders.push(encoder);
  freeEncoderBytes += bytes;
}

export class AvroStreamWriter {
  #sink: AvroSink;
  readonly #codec: AvroCodec;
  readonly #snappy: SnappyMode;
  readonly #maxBatchPoints: number;
  readonly #blockPoints: number;
  readonly #maxDelayMs: number;
  readonly #unit: TimestampUnit | undefined;
  readonly #sync = crypto.getRandomValues(new Uint8Array(16));
  /** Series by key (channel and sorted tags), in order of first arrival. */
  readonly #series = new Map<string, Series>();
  /** The series of each channel: a call finds its own among a few by comparing tags, building no key. */
  readonly #ofChannel = new Map<string, Series[]>();
  #pending = 0;
  #headerWritten = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #writing: Promise<void> = Promise.resolve();
  #failure: unknown;
  #closed = false;

  constructor(
    sink: AvroSink | WritableStream<Uint8Array>,
    {
      codec = "snappy",
      snappy = "fast",
      maxBatchPoints = 250_000,
      maxDelayMs = 100,
      timestampUnit,
    }: WriterOptions = {},
  ) {
    this.#sink = toSink(sink);
    this.#codec = checkCodec(codec, "createWriter's codec");
    this.#snappy = checkSnappyMode(snappy, "createWriter");
    if (!Number.isSafeInteger(maxBatchPoints) || maxBatchPoints < 1)
      throw new AvaError(
        "INVALID_ARGUMENT",
        `createWriter: maxBatchPoints ${maxBatchPoints} is not a positive integer`,
      );
    if (!(maxDelayMs >= 0))
      throw new AvaError("INVALID_ARGUMENT", `createWriter: maxDelayMs ${maxDelayMs} is not a duration`);
    this.#maxBatchPoints = maxBatchPoints;
    this.#blockPoints = Math.min(maxBatchPoints, MAX_BLOCK_POINTS);
    this.#maxDelayMs = maxDelayMs;
    this.#unit = timestampUnit;
  }

  #check(): void {
    if (this.#failure) throw this.#failure;
    if (this.#closed) throw new AvaError("INVALID_ARGUMENT", "the writer is closed");
  }

  /** The series of (channel, tags) for values of `kind`: possibly new and not yet registered. */
  #seriesFor(channel: string, tags: Record<string, string> | undefined, kind: ValueKind): Series {
    let s: Series | undefined;
    const known = this.#ofChannel.get(channel);
    if (known !== undefined && known.length <= FEW_TAG_SETS) {
      for (let i = 0; i < known.length; i++) {
        if (known[i]!.hasTags(tags)) {
          s = known[i];
          break;
        }
      }
    }
    if (s === undefined) {
      if (typeof channel !== "string" || channel === "") refuse("a channel name must be a non-empty string");
      const t = checkTags(tags, whereOf(channel));
      const key = JSON.stringify([channel, Object.entries(t).sort(([a], [b]) => (a < b ? -1 : 1))]);
      s = this.#series.get(key) ?? new Series(key, channel, { ...t }, kind);
    }
    if (s.kind !== kind) {
      if (s.length > 0)
        refuse(
          `${whereOf(channel)}: ${kindName(kind)} values while ${kindName(s.kind)} values of the same channel and tags are pending`,
        );
      s.setKind(kind);
    }
    return s;
  }

  /** Keeps what a call staged: registers a new series, counts the points, flushes when due. */
  #commit(s: Series, n: number): void {
    if (!s.registered) {
      this.#series.set(s.key, s);
      const known = this.#ofChannel.get(s.channel);
      if (known) known.push(s);
      else this.#ofChannel.set(s.channel, [s]);
      s.registered = true;
    }
    s.commit(n);
    this.#pending += n;
  }

  #afterCommit(): void {
    if (this.#pending >= this.#maxBatchPoints) void this.#flushInBackground();
    else this.#timer ??= setTimeout(() => void this.#flushInBackground(), this.#maxDelayMs);
  }

  /** One point. */
  enqueue(channel: string, timestamp: Timestamp, value: StreamValue, tags?: Record<string, string>): void {
    this.#check();
    this.#commit(this.#stageOne(channel, timestamp, value, tags), 1);
    this.#afterCommit();
  }

  /** Stages one point past its series' length; names the point only when refusing it. */
  #stageOne(
    channel: string,
    timestamp: Timestamp,
    value: StreamValue,
    tags: Record<string, string> | undefined,
  ): Series {
    const s = this.#seriesFor(channel, tags, kindOf(value, channel, 0));
    s.reserve(1);
    const at = s.length;
    if (typeof timestamp === "bigint") {
      s.times[at] = timestamp; // wraps silently past 64 bits: read back to know
      if (s.times[at] !== timestamp)
        refuse(`${pointOf(channel, 0)}: timestamp ${timestamp} is outside 64 bits`);
    } else s.times[at] = toNanos(timestamp, this.#unit, pointOf(channel, 0));
    if (s.kind === "double") s.doubles[at] = value as number;
    else if (s.kind === "long") {
      s.longs[at] = value as bigint;
      if (s.longs[at] !== value) refuse(`${pointOf(channel, 0)}: ${value} is outside 64 bits`);
    } else s.items[at] = classify(value, pointOf(channel, 0)).value;
    return s;
  }

  /** Points of one channel: parallel timestamps and values, all of one type, as many as you like. */
  enqueueBatch(
    channel: string,
    timestamps: readonly Timestamp[] | BigInt64Array,
    values: Values,
    tags?: Record<string, string>,
  ): void {
    this.#check();
    const n = timestamps.length;
    if (n === 0 || values.length === 0) refuse(`${whereOf(channel)}: an empty batch`);
    if (n !== values.length) refuse(`${whereOf(channel)}: ${n} timestamps but ${values.length} values`);
    const kind =
      values instanceof Float64Array
        ? "double"
        : values instanceof BigInt64Array
          ? "long"
          : kindOf(values[0], channel, 0);
    const s = this.#seriesFor(channel, tags, kind);
    s.reserve(n);
    try {
      this.#stageTimes(s, timestamps, channel);
      this.#stageValues(s, values, channel);
    } catch (err) {
      s.abort();
      throw err;
    }
    this.#commit(s, n);
    this.#afterCommit();
  }

  #stageTimes(s: Series, timestamps: readonly Timestamp[] | BigInt64Array, channel: string): void {
    const at = s.length;
    const times = s.times;
    if (timestamps instanceof BigInt64Array) {
      times.set(timestamps, at);
      return;
    }
    for (let i = 0; i < timestamps.length; i++) {
      const t = timestamps[i]!;
      if (typeof t === "bigint") {
        times[at + i] = t; // wraps silently past 64 bits: read back to know
        if (times[at + i] !== t) refuse(`${pointOf(channel, i)}: timestamp ${t} is outside 64 bits`);
      } else times[at + i] = toNanos(t, this.#unit, pointOf(channel, i));
    }
  }

  #stageValues(s: Series, values: Values, channel: string): void {
    const at = s.length;
    if (values instanceof Float64Array) s.doubles.set(values, at);
    else if (values instanceof BigInt64Array) s.longs.set(values, at);
    else if (s.kind === "double") {
      const out = s.doubles;
      for (let i = 0; i < values.length; i++) {
        const v = values[i];
        if (typeof v !== "number") mixed(s, channel, v, i);
        out[at + i] = v as number;
      }
    } else if (s.kind === "long") {
      const out = s.longs;
      for (let i = 0; i < values.length; i++) {
        const v = values[i];
        if (typeof v !== "bigint") mixed(s, channel, v, i);
        out[at + i] = v as bigint;
        if (out[at + i] !== v) refuse(`${pointOf(channel, i)}: ${v} is outside 64 bits`);
      }
    } else {
      for (let i = 0; i < values.length; i++) {
        const v = classify(values[i], pointOf(channel, i));
        if (v.kind !== s.kind) mixed(s, channel, values[i], i);
        s.items[at + i] = v.value;
      }
    }
  }

  /** One timestamp, several channels: every channel is checked before any is enqueued. */
  enqueueFromDict(
    timestamp: Timestamp,
    values: Record<string, StreamValue>,
    tags?: Record<string, string>,
  ): void {
    this.#check();
    const channels = Object.keys(values);
    if (channels.length === 0) refuse("enqueueFromDict: no values");
    const staged: Series[] = [];
    try {
      for (const channel of channels) staged.push(this.#stageOne(channel, timestamp, values[channel]!, tags));
    } catch (err) {
      for (const s of staged) s.abort();
      throw err;
    }
    for (const s of staged) this.#commit(s, 1);
    this.#afterCommit();
  }

  /**
   * Encodes every pending point now, into blocks of at most maxBatchPoints points, so the series' columns
   * are free for the next points at once; compression and the sink's writes follow in order, in the background.
   */
  #flushInBackground(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const header = this.#headerWritten ? undefined : streamHeader(this.#codec, this.#sync);
    this.#headerWritten = true;
    if (this.#pending === 0) {
      if (header) this.#queueWrite(header);
      return this.#writing;
    }
    let encoder = this.#encoder();
    if (header) encoder.out.raw(header); // ahead of the first block, in its buffer: one write, no block buffer of its own
    let room = this.#blockPoints;
    for (const s of this.#series.values()) {
      if (s.length === 0) {
        // Idle for a whole flush interval: drop it (tags that change every point would otherwise pile up).
        if (++s.idle > 1) this.#forget(s);
        continue;
      }
      for (let from = 0; from < s.length; ) {
        const to = Math.min(s.length, from + room);
        encoder.add(s.record(from, to));
        room -= to - from;
        from = to;
        if (room === 0) {
          this.#queue(encoder);
          encoder = this.#encoder();
          room = this.#blockPoints;
        }
      }
      s.clear(this.#blockPoints);
      s.idle = 1;
    }
    this.#pending = 0;
    if (encoder.count > 0) this.#queue(encoder);
    else {
      giveBackBlockBuffer(encoder.out);
      giveBackEncoder(encoder);
    }
    return this.#writing;
  }

  #forget(s: Series): void {
    this.#series.delete(s.key);
    const known = this.#ofChannel.get(s.channel)!;
    known.splice(known.indexOf(s), 1);
    if (known.length === 0) this.#ofChannel.delete(s.channel);
  }

  #encoder(): BlockEncoder {
    // Sized for a full block of doubles (9 bytes a timestamp, 9 a value): growing copies it, page by page.
    return takeEncoder(
      this.#codec,
      this.#snappy,
      this.#sync,
      takeBlockBuffer(this.#blockPoints * 18 + (1 << 16)),
    );
  }

  /**
   * Compresses one block now and queues its write to the sink of now, after every write queued before it.
   * Snappy's work is synchronous: the encoder's records and compression buffers are free for the next block
   * at once, instead of held while earlier writes wait — a burst of batches would otherwise hold (and
   * allocate) a set of block-sized buffers for each. The block buffer is free again once written.
   */
  #queue(encoder: BlockEncoder): void {
    const sink = this.#sink;
    const out = encoder.out;
    const compressed = Promise.resolve(encoder.end()).finally(() => giveBackEncoder(encoder));
    compressed.catch(() => {}); // a failure is latched by the write's step below
    this.#then(
      async () => {
        await compressed;
        await sink.write(out.view());
      },
      () => giveBackBlockBuffer(out),
    );
  }

  /** Queues a write of `bytes` (a header-only file's header) to the sink of now. */
  #queueWrite(bytes: Uint8Array): void {
    const sink = this.#sink;
    this.#then(() => sink.write(bytes));
  }

  /** Runs `step` after every step queued before it, unless one failed; a failure is latched. */
  #then(step: () => Promise<void>, after?: () => void): void {
    this.#writing = this.#writing.then(async () => {
      try {
        if (!this.#failure) await step();
      } catch (err) {
        this.#failure = toAvaError(err, "writing the Avro stream"); // latched: the next call reports it
      } finally {
        after?.();
      }
    });
  }

  /** Writes every pending point as blocks; resolves once the sink has them. */
  async flush(): Promise<void> {
    this.#check();
    await this.#flushInBackground();
    if (this.#failure) throw this.#failure;
  }

  /**
   * Ends the file: every pending point is encoded for the current sink (which is not closed), and the
   * points enqueued from now on go to a new file, header and all, on `next`. Resolves once the old sink has
   * its last bytes. A live stream cuts each batch this way: one writer for the stream keeps its series'
   * columns and block buffers from batch to batch, where a writer a batch grew them again every time.
   */
  async rotate(next: AvroSink): Promise<void> {
    this.#check();
    const written = this.#flushInBackground();
    this.#sink = toSink(next);
    this.#headerWritten = false;
    await written;
    if (this.#failure) throw this.#failure;
  }

  /** Flushes and closes the sink. A writer that got no points still writes a valid header-only file. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.flush();
    this.#closed = true;
    await this.#sink.close?.();
  }
}

/** A sink, a WritableStream (wrapped by streamSink), or an INVALID_ARGUMENT now rather than at the first write. */
function toSink(sink: unknown): AvroSink {
  if (typeof WritableStream !== "undefined" && sink instanceof WritableStream) return streamSink(sink);
  const s = sink as Partial<AvroSink> | null;
  if (typeof s === "object" && s !== null && typeof s.write === "function") {
    if (s.close !== undefined && typeof s.close !== "function")
      throw new AvaError("INVALID_ARGUMENT", "createWriter: the sink's close is not a function");
    return s as AvroSink;
  }
  throw new AvaError(
    "INVALID_ARGUMENT",
    `createWriter: ${sink === null ? "null" : typeof sink === "object" ? "an object without a write method" : typeof sink} is not a sink (pass an AvroSink — memorySink(), nodeFileSink(), opfsFileSink() — or a WritableStream<Uint8Array>)`,
  );
}

export function createWriter(
  sink: AvroSink | WritableStream<Uint8Array>,
  options: WriterOptions = {},
): AvroStreamWriter {
  return new AvroStreamWriter(sink, options);
}

/** Writes shorter than this (a header) are joined with the next one instead of kept apart. */
const SMALL_PART = 1 << 16;

/**
 * A sink that keeps the file in memory: `bytes()` is the file so far. Every write is copied (the writer
 * reuses its block buffers) and the pieces joined once, when asked; a short piece (the header) is joined
 * with the next write at once, so a file of a header and one block (a live batch) is copied only once.
 */
export function memorySink(): AvroSink & { bytes(): Uint8Array } {
  let parts: Uint8Array[] = [];
  return {
    async write(bytes) {
      const last = parts.at(-1);
      if (last && last.length < SMALL_PART) parts[parts.length - 1] = concatBytes([last, bytes]);
      else parts.push(bytes.slice());
    },
    bytes: () => {
      if (parts.length !== 1) parts = [concatBytes(parts)];
      return parts[0]!;
    },
  };
}

/** A sink onto any WritableStream (a file's createWritable(), a network stream, …). */
export function streamSink(stream: WritableStream<Uint8Array>): AvroSink {
  const writer = stream.getWriter();
  // A stream may hold on to its chunks (queued, or kept by its underlying sink): it gets its own copy.
  return { write: (bytes) => writer.write(bytes.slice()), close: () => writer.close() };
}
