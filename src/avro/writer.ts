// `createWriter(sink, options)`: the enqueue API of nominal-streaming, writing an Avro stream file. Points
// are buffered per series (channel, tags) — one value type per series within a batch — and written as one
// block per flush: when `maxBatchPoints` are pending, `maxDelayMs` after the first pending point, or on
// flush()/close(). A bad call is refused before any of its points are buffered. A failed background flush
// is latched and reported by the next call.
import { AvaError, toAvaError } from "../errors.js";
import { ByteWriter } from "./binary.js";
import { type AvroCodec, checkCodec, compress } from "./codecs.js";
import { encodeBlock, encodeHeader } from "./container.js";
import { type AvroValue, writeRecord } from "./record.js";
import { AVRO_STREAM_SCHEMA_TEXT, SEED_BRANCH, type ValueKind } from "./schema.js";
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

export interface AvroSink {
  write(bytes: Uint8Array): Promise<void>;
  close?(): Promise<void>;
}

export interface WriterOptions {
  /** Block codec. Default "snappy", as nominal-streaming writes. */
  codec?: AvroCodec;
  /** Flush once this many points are pending. Default 250,000 (nominal-streaming's request size). */
  maxBatchPoints?: number;
  /** Flush this long after the first pending point. Default 100 ms. */
  maxDelayMs?: number;
  /** The unit of plain-number timestamps; without it they are refused (a double cannot hold epoch ns). */
  timestampUnit?: TimestampUnit;
}

/** A checked batch, ready to join its series. */
interface PreparedBatch {
  key: string;
  channel: string;
  tags: Record<string, string>;
  kind: ValueKind;
  timestamps: bigint[];
  values: AvroValue[];
}

interface Series {
  channel: string;
  tags: Record<string, string>;
  kind: ValueKind;
  timestamps: bigint[];
  values: AvroValue[];
}

export class AvroStreamWriter {
  readonly #sink: AvroSink;
  readonly #codec: AvroCodec;
  readonly #maxBatchPoints: number;
  readonly #maxDelayMs: number;
  readonly #unit: TimestampUnit | undefined;
  readonly #sync = crypto.getRandomValues(new Uint8Array(16));
  #series = new Map<string, Series>();
  #pending = 0;
  #headerWritten = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #writing: Promise<void> = Promise.resolve();
  #failure: unknown;
  #closed = false;

  constructor(
    sink: AvroSink,
    { codec = "snappy", maxBatchPoints = 250_000, maxDelayMs = 100, timestampUnit }: WriterOptions = {},
  ) {
    this.#sink = sink;
    this.#codec = checkCodec(codec, "createWriter's codec");
    this.#maxBatchPoints = maxBatchPoints;
    this.#maxDelayMs = maxDelayMs;
    this.#unit = timestampUnit;
  }

  #check(): void {
    if (this.#failure) throw this.#failure;
    if (this.#closed) throw new AvaError("INVALID_ARGUMENT", "the writer is closed");
  }

  /** One point. */
  enqueue(channel: string, timestamp: Timestamp, value: StreamValue, tags?: Record<string, string>): void {
    this.enqueueBatch(channel, [timestamp], [value], tags);
  }

  /** Points of one channel: parallel timestamps and values, all of one type. */
  enqueueBatch(
    channel: string,
    timestamps: readonly Timestamp[] | BigInt64Array,
    values: readonly StreamValue[] | Float64Array,
    tags?: Record<string, string>,
  ): void {
    this.#check();
    this.#add(this.#prepare(channel, timestamps, values, tags));
  }

  /** One timestamp, several channels: every channel is checked before any is enqueued. */
  enqueueFromDict(
    timestamp: Timestamp,
    values: Record<string, StreamValue>,
    tags?: Record<string, string>,
  ): void {
    this.#check();
    const entries = Object.entries(values);
    if (entries.length === 0)
      throw new AvaError("INVALID_ARGUMENT", "enqueueFromDict: no values; nothing was enqueued");
    const batches = entries.map(([channel, v]) => this.#prepare(channel, [timestamp], [v], tags));
    for (const batch of batches) this.#add(batch);
  }

  /** Checks a batch against the rules and the pending series, changing nothing; throws what it refuses. */
  #prepare(
    channel: string,
    timestamps: readonly Timestamp[] | BigInt64Array,
    values: readonly StreamValue[] | Float64Array,
    tags: Record<string, string> | undefined,
  ): PreparedBatch {
    const where = `channel ${JSON.stringify(channel)}`;
    if (typeof channel !== "string" || channel === "")
      throw new AvaError(
        "INVALID_ARGUMENT",
        "a channel name must be a non-empty string; nothing was enqueued",
      );
    if (timestamps.length === 0 || values.length === 0)
      throw new AvaError("INVALID_ARGUMENT", `${where}: an empty batch; nothing was enqueued`);
    if (timestamps.length !== values.length) {
      throw new AvaError(
        "INVALID_ARGUMENT",
        `${where}: ${timestamps.length} timestamps but ${values.length} values; nothing was enqueued`,
      );
    }
    const t = checkTags(tags, where);
    const ns = Array.from(timestamps as ArrayLike<Timestamp>, (x, i) =>
      toNanos(x, this.#unit, `${where} point ${i}`),
    );
    const vs = Array.from(values as ArrayLike<unknown>, (v, i) => classify(v, `${where} point ${i}`));
    const kind = vs[0]!.kind;
    const mixed = vs.findIndex((v) => v.kind !== kind);
    if (mixed >= 0) {
      throw new AvaError(
        "INVALID_ARGUMENT",
        `${where}: point ${mixed} is a ${kindName(vs[mixed]!.kind)} in a batch of ${kindName(kind)} values; nothing was enqueued`,
      );
    }
    const key = JSON.stringify([channel, Object.entries(t).sort(([a], [b]) => (a < b ? -1 : 1))]);
    const pending = this.#series.get(key);
    if (pending && pending.kind !== kind) {
      throw new AvaError(
        "INVALID_ARGUMENT",
        `${where}: ${kindName(kind)} values while ${kindName(pending.kind)} values of the same channel and tags are pending; nothing was enqueued`,
      );
    }
    return { key, channel, tags: t, kind, timestamps: ns, values: vs };
  }

  #add(batch: PreparedBatch): void {
    const target = this.#series.get(batch.key) ?? {
      channel: batch.channel,
      tags: { ...batch.tags },
      kind: batch.kind,
      timestamps: [],
      values: [],
    };
    this.#series.set(batch.key, target);
    target.timestamps.push(...batch.timestamps);
    target.values.push(...batch.values);
    this.#pending += batch.timestamps.length;
    if (this.#pending >= this.#maxBatchPoints) void this.#flushInBackground();
    else this.#timer ??= setTimeout(() => void this.#flushInBackground(), this.#maxDelayMs);
  }

  #flushInBackground(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const series = [...this.#series.values()];
    this.#series = new Map();
    this.#pending = 0;
    this.#writing = this.#writing.then(async () => {
      if (this.#failure) return;
      try {
        await this.#writeBlock(series);
      } catch (err) {
        this.#failure = toAvaError(err, "writing the Avro stream"); // latched: the next call reports it
      }
    });
    return this.#writing;
  }

  async #writeBlock(series: Series[]): Promise<void> {
    const parts: Uint8Array[] = [];
    if (!this.#headerWritten) {
      parts.push(
        encodeHeader({ "avro.schema": AVRO_STREAM_SCHEMA_TEXT, "avro.codec": this.#codec }, this.#sync),
      );
      this.#headerWritten = true;
    }
    if (series.length > 0) {
      const w = new ByteWriter();
      for (const s of series) {
        const values =
          s.kind === "double"
            ? { kind: "double" as const, values: Float64Array.from(s.values, (v) => v.value as number) }
            : { kind: "mixed" as const, values: s.values };
        writeRecord(
          w,
          { channel: s.channel, timestamps: BigInt64Array.from(s.timestamps), values, tags: s.tags },
          (k) => SEED_BRANCH[k],
        );
      }
      parts.push(encodeBlock(series.length, await compress(this.#codec, w.view()), this.#sync));
    }
    for (const p of parts) await this.#sink.write(p);
  }

  /** Writes every pending point as a block; resolves once the sink has it. */
  async flush(): Promise<void> {
    this.#check();
    await this.#flushInBackground();
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

export function createWriter(sink: AvroSink, options: WriterOptions = {}): AvroStreamWriter {
  return new AvroStreamWriter(sink, options);
}

/** A sink that keeps the file in memory: `bytes()` is the file so far. */
export function memorySink(): AvroSink & { bytes(): Uint8Array } {
  const parts: Uint8Array[] = [];
  return {
    async write(bytes) {
      parts.push(bytes.slice());
    },
    bytes: () => concatBytes(parts),
  };
}

/** A sink onto any WritableStream (a file's createWritable(), a network stream, …). */
export function streamSink(stream: WritableStream<Uint8Array>): AvroSink {
  const writer = stream.getWriter();
  return { write: (bytes) => writer.write(bytes), close: () => writer.close() };
}
