// `createLiveStream(options)`: the writer's enqueue API, sending batches live. Points are buffered by an
// AvroStreamWriter; every `maxBatchPoints` points or `maxDelayMs` after the first, the batch becomes one
// Avro stream file with an id of its own, queued and sent in order by the transport. A failed send is
// retried with exponential backoff (capped) for as long as it takes — a batch is never dropped because the
// network failed; a batch the server refuses is counted, reported and set aside.
//
// Not yet here (issue 13's "Live stream"): the durable outbox (batches kept in storage before sending) and
// resume after a restart. Until the outbox exists, unsent batches live in memory only.
import { AvaError } from "../../errors.js";
import { ulid } from "../../util/ids.js";
import type { AvroCodec } from "../codecs.js";
import type { StreamValue, Timestamp, TimestampUnit } from "../values.js";
import { type AvroStreamWriter, createWriter, memorySink } from "../writer.js";
import { nominalTransport } from "./nominal-transport.js";
import { avroTransport, isRetryable, type LiveBatch, type Transport } from "./transport.js";

export interface LiveStreamOptions {
  /**
   * Where batches go (required unless `transport` is a function): the endpoint the "avro" transport POSTs
   * to, or the Nominal API's base URL for "nominal".
   */
  url?: string | URL;
  /**
   * "avro" (default): each batch one Avro stream file with an Idempotency-Key, for `ingestHandler` or any
   * server that dedupes by key; "nominal": Nominal's protobuf live write request; or your own function.
   */
  transport?: "avro" | "nominal" | Transport;
  /** The "nominal" transport's dataset. */
  datasetRid?: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  headers?: Record<string, string>;
  /** The "avro" transport abandons (and retries) a request this slow. Default 30 s. */
  requestTimeoutMs?: number;
  /** Points a batch. Default 250,000 (nominal-streaming's request). */
  maxBatchPoints?: number;
  /** Longest a point waits before its batch is sent. Default 100 ms. */
  maxDelayMs?: number;
  /** Block codec of each batch file. Default "snappy". */
  codec?: AvroCodec;
  timestampUnit?: TimestampUnit;
  /** First retry delay, doubled on each failure up to `maxBackoffMs`. Defaults 100 ms and 30 s. */
  backoffMs?: number;
  maxBackoffMs?: number;
}

export interface LiveStreamStatus {
  /** Points enqueued and not yet in a batch. */
  pointsBuffered: number;
  /** Batches made and not yet acknowledged (in memory: the outbox is not built yet). */
  batchesPending: number;
  batchesSent: number;
  pointsSent: number;
  /** Failed sends that were tried again. */
  retries: number;
  /** Batches the server refused (not retried). */
  batchesRefused: number;
  lastError: Error | undefined;
}

/** Events: "sent" (detail: LiveBatch), "retry" and "refused" (detail: { batch, error }). */
export class LiveStream extends EventTarget {
  readonly #transport: Transport;
  readonly #options: Required<
    Pick<LiveStreamOptions, "maxBatchPoints" | "maxDelayMs" | "backoffMs" | "maxBackoffMs">
  > &
    Pick<LiveStreamOptions, "codec" | "timestampUnit">;
  #writer: AvroStreamWriter;
  #sink = memorySink();
  #buffered = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #queue: LiveBatch[] = [];
  #cutting: Promise<void> = Promise.resolve();
  #sending: Promise<void> | undefined;
  #closed = false;
  readonly #abort = new AbortController();
  readonly #status = { batchesSent: 0, pointsSent: 0, retries: 0, batchesRefused: 0 };
  #lastError: Error | undefined;

  constructor(options: LiveStreamOptions) {
    super();
    this.#transport = transportOf(options);
    this.#options = {
      maxBatchPoints: options.maxBatchPoints ?? 250_000,
      maxDelayMs: options.maxDelayMs ?? 100,
      backoffMs: options.backoffMs ?? 100,
      maxBackoffMs: options.maxBackoffMs ?? 30_000,
      ...(options.codec && { codec: options.codec }),
      ...(options.timestampUnit && { timestampUnit: options.timestampUnit }),
    };
    this.#writer = this.#newWriter(); // checks codec, maxBatchPoints, maxDelayMs
  }

  #newWriter(): AvroStreamWriter {
    this.#sink = memorySink();
    const { codec = "snappy", timestampUnit, maxBatchPoints } = this.#options;
    // The batch is cut here, not by the writer: its own size and time flushes are kept out of the way.
    return createWriter(this.#sink, {
      codec,
      maxBatchPoints: Math.max(maxBatchPoints, 1),
      maxDelayMs: 2 ** 31 - 1,
      ...(timestampUnit && { timestampUnit }),
    });
  }

  #check(): void {
    if (this.#closed) throw new AvaError("INVALID_ARGUMENT", "the live stream is closed");
  }

  #added(n: number): void {
    this.#buffered += n;
    if (this.#buffered >= this.#options.maxBatchPoints) void this.#cut();
    else this.#timer ??= setTimeout(() => void this.#cut(), this.#options.maxDelayMs);
  }

  enqueue(channel: string, timestamp: Timestamp, value: StreamValue, tags?: Record<string, string>): void {
    this.#check();
    this.#writer.enqueue(channel, timestamp, value, tags);
    this.#added(1);
  }

  enqueueBatch(
    channel: string,
    timestamps: readonly Timestamp[] | BigInt64Array,
    values: readonly StreamValue[] | Float64Array | BigInt64Array,
    tags?: Record<string, string>,
  ): void {
    this.#check();
    this.#writer.enqueueBatch(channel, timestamps, values, tags);
    this.#added(timestamps.length);
  }

  enqueueFromDict(
    timestamp: Timestamp,
    values: Record<string, StreamValue>,
    tags?: Record<string, string>,
  ): void {
    this.#check();
    this.#writer.enqueueFromDict(timestamp, values, tags);
    this.#added(Object.keys(values).length);
  }

  /** Ends the open batch: its file joins the send queue. */
  async #cut(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#buffered === 0) return;
    const writer = this.#writer;
    const sink = this.#sink;
    const points = this.#buffered;
    this.#writer = this.#newWriter();
    this.#buffered = 0;
    const id = ulid();
    // Batches join the queue in the order they were cut, however long each writer takes to close.
    this.#cutting = this.#cutting.then(async () => {
      await writer.close();
      this.#queue.push({ id, bytes: sink.bytes(), points });
      this.#sending ??= this.#sendAll().finally(() => {
        this.#sending = undefined;
      });
    });
    await this.#cutting;
  }

  /** Sends queued batches in order, each until acknowledged or refused. */
  async #sendAll(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue[0]!;
      let delay = this.#options.backoffMs;
      for (;;) {
        try {
          await this.#transport(batch, this.#abort.signal);
          this.#status.batchesSent++;
          this.#status.pointsSent += batch.points;
          this.dispatchEvent(new CustomEvent("sent", { detail: batch }));
          break;
        } catch (err) {
          this.#lastError = err as Error;
          if (this.#abort.signal.aborted) return;
          if (!isRetryable(err)) {
            this.#status.batchesRefused++;
            this.dispatchEvent(new CustomEvent("refused", { detail: { batch, error: err } }));
            break;
          }
          this.#status.retries++;
          this.dispatchEvent(new CustomEvent("retry", { detail: { batch, error: err } }));
          await new Promise((r) => setTimeout(r, delay));
          delay = Math.min(delay * 2, this.#options.maxBackoffMs);
        }
      }
      this.#queue.shift();
    }
  }

  /** Sends everything enqueued so far; resolves once every batch is acknowledged (or refused). */
  async flush(): Promise<void> {
    await this.#cut();
    await this.#cutting;
    while (this.#sending) await this.#sending;
  }

  /** Flushes, then refuses further points. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.flush();
    this.#closed = true;
  }

  /** Stops at once: batches not yet acknowledged stay unsent (in memory only, until the outbox exists). */
  abort(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#abort.abort();
  }

  status(): LiveStreamStatus {
    return {
      pointsBuffered: this.#buffered,
      batchesPending: this.#queue.length,
      ...this.#status,
      lastError: this.#lastError,
    };
  }
}

/** The transport `options` ask for, or INVALID_ARGUMENT naming what is missing. */
function transportOf(options: LiveStreamOptions): Transport {
  const { transport = "avro", url, token, datasetRid } = options;
  if (typeof transport === "function") return transport;
  if (transport !== "avro" && transport !== "nominal")
    throw new AvaError(
      "INVALID_ARGUMENT",
      `createLiveStream: transport ${JSON.stringify(transport)} is not "avro", "nominal" or a function`,
    );
  if (url === undefined)
    throw new AvaError("INVALID_ARGUMENT", `createLiveStream: the ${transport} transport needs a url`);
  const headers = { ...options.headers, ...(token !== undefined && { Authorization: `Bearer ${token}` }) };
  const timeout = options.requestTimeoutMs !== undefined && { timeoutMs: options.requestTimeoutMs };
  if (transport === "avro") return avroTransport({ url, headers, ...timeout });
  return nominalTransport({ url, datasetRid: datasetRid as string, headers, ...timeout });
}

export function createLiveStream(options: LiveStreamOptions): LiveStream {
  return new LiveStream(options);
}
