// `createLiveStream(options)`: the writer's enqueue API, sending batches live through a durable outbox.
// Points are buffered by an AvroStreamWriter; every `maxBatchPoints` points or `maxDelayMs` after the first,
// the batch becomes one Avro stream file with an id of its own. That file is written to the outbox (an
// avalanche storage, recorded by its catalog) BEFORE it is sent; the outbox's sender posts batches oldest
// first and removes each once the server acknowledges it, retrying failures with backoff for as long as it
// takes. A stream created on the same outbox and name after a reload or a restart sends what was left.
//
// Memory is bounded: at most `maxBufferedBatches` cut batches wait to enter the outbox and as many are kept
// in memory for their send (later ones are read back from the outbox). `enqueue` never waits: when the
// buffer is full it throws QUOTA_EXCEEDED, having enqueued nothing of that call, and `writable()` resolves
// when it would be taken again. The outbox's byte cap is enforced by its `outboxPolicy`, never silently.
import { AvaError, isAvaError } from "../../errors.js";
import type { OutboxBatch } from "../../storage/catalog/model.js";
import { outboxBytes } from "../../storage/catalog/outbox-state.js";
import { memoryStorage } from "../../storage/memory/memory-storage.js";
import type { Storage } from "../../storage/types.js";
import { checkName } from "../../util/names.js";
import { ulid } from "../../util/ids.js";
import type { AvroCodec } from "../codecs.js";
import type { SnappyMode } from "../snappy.js";
import type { StreamValue, Timestamp, TimestampUnit } from "../values.js";
import { type AvroStreamWriter, createWriter } from "../writer.js";
import { BatchBuffers, type BatchSink } from "./batch-buffers.js";
import { checkLiveOptions } from "./live-options.js";
import { checkPolicy, defaultOutboxBytes, Outbox, type OutboxPolicy } from "./outbox.js";
import { OutboxSender } from "./outbox-sender.js";
import { senderLock } from "./sender-lock.js";
import { nominalTransport } from "./nominal-transport.js";
import type { NodeTls } from "./node-http-post.js";
import { avroTransport, type LiveBatch, type Transport } from "./transport.js";

/** A batch file no catalog entry names, this old, was left by a writer that died before committing it. */
const ORPHAN_AGE_MS = 10 * 60_000;

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
  /**
   * https in Node: `{ ca }`, PEM certificates to trust besides Node's own (a private CA, a self-signed
   * server). A server whose certificate is not trusted fails each send with an IO_ERROR saying so (the
   * batch stays in the outbox). Refused in a browser, which trusts what its system trusts.
   */
  tls?: NodeTls;
  /** Points a batch. Default 250,000 (nominal-streaming's request). */
  maxBatchPoints?: number;
  /** Longest a point waits before its batch is sent. Default 100 ms. */
  maxDelayMs?: number;
  /** Block codec of each batch file. Default "snappy". */
  codec?: AvroCodec;
  /** How snappy batches are compressed: "fast" (default) or "small" (createWriter's `snappy`). */
  snappy?: SnappyMode;
  timestampUnit?: TimestampUnit;
  /** First retry delay, doubled on each failure up to `maxBackoffMs`. Defaults 100 ms and 30 s. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /**
   * Where batches are kept until acknowledged: `browserStorage(...)` (OPFS + IndexedDB), `nodeStorage(...)`
   * (a folder) or `memoryStorage()`. Default: a memory storage of this stream's own, which survives network
   * failures but not a reload or a restart.
   */
  outbox?: Storage;
  /** The stream's name in the outbox: a new stream of the same outbox and name resends what is left. Default "live". */
  name?: string;
  /**
   * Most bytes the stream keeps in its outbox. Default: half the free space `navigator.storage.estimate()`
   * reports for browser storage, 256 MiB for Node storage, 64 MiB for memory storage.
   */
  maxOutboxBytes?: number;
  /**
   * At the cap: "block" (default) — new batches wait in memory for room (then `enqueue` throws
   * QUOTA_EXCEEDED until there is some); "drop-oldest" — the oldest unsent batches are deleted, counted in
   * `status()` and announced by a "dropped" event; "error" — `enqueue` throws QUOTA_EXCEEDED while full.
   */
  outboxPolicy?: OutboxPolicy;
  /** Batches held in memory waiting for the outbox (past it, `enqueue` throws QUOTA_EXCEEDED), and as many kept for their send. Default 16. */
  maxBufferedBatches?: number;
  /**
   * Batches posted before the first of them is answered. Default 2. Answers are still taken in order: a
   * batch leaves the outbox only after every batch before it was acknowledged, and after a failure the
   * batches behind it are posted again (the server's idempotency keys drop the repeats). Up to this many
   * batches may reach the server out of order; 1 keeps arrival in order too.
   */
  maxInFlight?: number;
  /** Node and memory outboxes: how long a sender's lease lasts without renewal (a dead sender's successor waits this long). Default 10 s. */
  leaseMs?: number;
}

export interface LiveStreamStatus {
  /** Points enqueued and not yet in the outbox (in the open batch or waiting for room). */
  pointsBuffered: number;
  /** Cut batches waiting in memory to enter the outbox. */
  batchesBuffered: number;
  /** Batches in the outbox, not yet acknowledged (this stream name's, from any tab or process). */
  batchesInOutbox: number;
  bytesInOutbox: number;
  pointsInOutbox: number;
  /** batchesBuffered + batchesInOutbox. */
  batchesPending: number;
  /** Sent and acknowledged by this stream's sender. */
  batchesSent: number;
  pointsSent: number;
  /** Failed sends that were tried again. */
  retries: number;
  /** Batches the server refused (4xx; not retried), removed from the outbox. */
  batchesRefused: number;
  /** Lost to the "drop-oldest" policy, over the outbox's whole life (kept in its catalog). */
  batchesDropped: number;
  pointsDropped: number;
  /** The outbox is at its cap: new batches wait ("block") or are refused ("error"). */
  full: boolean;
  /** The browser says it is online and the last send attempt reached the server. */
  online: boolean;
  lastError: Error | undefined;
}

/**
 * Events (CustomEvent detail): "stored" (OutboxBatch: durable in the outbox), "sent" (OutboxBatch),
 * "retry" and "refused" ({ batch, error }), "dropped" ({ batches, points }: lost to drop-oldest), "full"
 * ({ policy, error }: the outbox reached its cap), "error" ({ error }: the outbox's storage failed; retried),
 * "online" and "offline".
 */
export class LiveStream extends EventTarget {
  readonly #options: ReturnType<typeof checkLiveOptions>;
  /** The "nominal" transport has no JSON point type: such points are refused when enqueued, not sent. */
  readonly #noJson: boolean;
  readonly #outbox: Outbox;
  readonly #sender: OutboxSender;
  readonly #policy: OutboxPolicy;
  #maxBytes: number | undefined;
  /** One writer for the stream's life: each batch is a file of its own, cut by `rotate`. */
  readonly #writer: AvroStreamWriter;
  /** Memory for batch files, reused once a batch has left the outbox. */
  readonly #buffers: BatchBuffers;
  /** The open batch's file. */
  #sink: BatchSink;
  #buffered = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Cut batches waiting to enter the outbox, in order. */
  readonly #waiting: LiveBatch[] = [];
  /** Batches cut whose file is still being written (they count against the memory bound too). */
  #closing = 0;
  #closingPoints = 0;
  #cutting: Promise<void> = Promise.resolve();
  #storing: Promise<void> | undefined;
  /** Batches this stream stored and has not yet seen leave the outbox (what flush() waits for). */
  readonly #mine = new Set<string>();
  /** Reads what the outbox held at start-up into #mine: flush() waits for a resumed backlog too. */
  readonly #resumed: Promise<void>;
  #full = false;
  /** A batch was cut since writable() last let the event loop turn. */
  #cutSinceYield = false;
  #online = true;
  #closed = false;
  #stopped = false;
  readonly #status = { batchesSent: 0, pointsSent: 0, retries: 0, batchesRefused: 0 };
  #lastError: Error | undefined;
  #changed: (() => void)[] = [];
  readonly #unsubscribe: () => void;
  readonly #onOnline = () => {
    this.#sender.online();
  };

  constructor(options: LiveStreamOptions) {
    super();
    this.#options = checkLiveOptions(options);
    this.#noJson = options.transport === "nominal";
    const send = transportOf(options);
    this.#policy = checkPolicy(options.outboxPolicy ?? "block");
    this.#maxBytes = options.maxOutboxBytes;
    const { backoffMs, maxBackoffMs, leaseMs, maxBufferedBatches, maxInFlight } = this.#options;
    // An app's transport function may keep a batch's bytes after its send: then none is reused.
    const ownTransport = typeof options.transport !== "function";
    this.#buffers = new BatchBuffers(ownTransport, 4 * maxBufferedBatches);
    this.#sink = this.#buffers.sink();
    this.#writer = this.#newWriter(); // checks codec and timestampUnit
    const storage = options.outbox ?? memoryStorage();
    this.#outbox = new Outbox(storage, checkName("live stream", options.name ?? "live"));
    const lock = senderLock(this.#outbox, ulid(), leaseMs);
    this.#sender = new OutboxSender(
      this.#outbox,
      send,
      lock,
      {
        backoffMs,
        maxBackoffMs,
        lockPollMs: Math.min(1000, leaseMs / 4),
        // A memory outbox holds the very bytes of each batch: the sender's reference to them costs no memory,
        // while reading one back copies it (fresh megabytes, whose external memory sets off full collections).
        maxCachedBatches:
          storage.descriptor.kind === "memory" ? Number.POSITIVE_INFINITY : maxBufferedBatches,
        maxInFlight,
      },
      {
        sent: (batch) => {
          this.#status.batchesSent++;
          this.#status.pointsSent += batch.points;
          this.#emit("sent", batch);
        },
        retry: (batch, error) => {
          this.#status.retries++;
          this.#lastError = error as Error;
          this.#emit("retry", { batch, error });
        },
        refused: (batch, error) => {
          this.#status.batchesRefused++;
          this.#lastError = error as Error;
          this.#emit("refused", { batch, error });
        },
        failed: (error) => this.#failed(error),
        reached: (ok) => {
          if (ok === this.#online) return;
          this.#online = ok;
          this.#emit(ok ? "online" : "offline", undefined);
        },
        removed: (batches) => {
          this.#buffers.giveBack(batches.map((b) => b.id));
          this.#notify();
        },
      },
    );
    // Another tab's or process's batches, and removals by another sender, show up through the catalog.
    this.#unsubscribe = storage.catalog.subscribe(() => {
      this.#sender.wake();
      this.#notify();
    });
    (globalThis as { addEventListener?: typeof addEventListener }).addEventListener?.(
      "online",
      this.#onOnline,
    );
    // Resume: whatever the outbox holds from before (a reload, a restart) is sent first.
    this.#sender.start();
    this.#resumed = this.#outbox.state().then(
      (state) => {
        for (const b of state.batches) this.#mine.add(b.id);
        void this.#outbox.sweep(ORPHAN_AGE_MS).catch(() => {}); // best effort: orphans are never sent anyway
      },
      (err) => this.#failed(err),
    );
  }

  #emit(type: string, detail: unknown): void {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  #failed(error: unknown): void {
    this.#lastError = error as Error;
    this.#emit("error", { error });
  }

  /** Wakes whoever waits for the outbox to change (flush, writable, a blocked store). */
  #notify(): void {
    const waiters = this.#changed;
    this.#changed = [];
    for (const w of waiters) w();
  }

  /** Resolves at the next change, or after `ms` (changes made by other processes are polled). */
  #nextChange(ms = 200): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#changed.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  #newWriter(): AvroStreamWriter {
    const { codec = "snappy", snappy = "fast", timestampUnit, maxBatchPoints } = this.#options;
    // The batch is cut here, not by the writer: its own size and time flushes are kept out of the way.
    return createWriter(this.#sink, {
      codec,
      snappy,
      maxBatchPoints: Math.max(maxBatchPoints, 1),
      maxDelayMs: 2 ** 31 - 1,
      ...(timestampUnit && { timestampUnit }),
    });
  }

  /** Why a new point cannot be taken now, if it cannot. */
  #refusal(): AvaError | undefined {
    if (this.#closed) return new AvaError("INVALID_ARGUMENT", "the live stream is closed");
    if (this.#full && this.#policy === "error")
      return new AvaError(
        "QUOTA_EXCEEDED",
        `live stream ${this.#outbox.stream}: the outbox is at its cap (outboxPolicy "error"); nothing of this call was enqueued`,
      );
    const inMemory = this.#waiting.length + this.#closing;
    if (inMemory >= this.#options.maxBufferedBatches)
      return new AvaError(
        "QUOTA_EXCEEDED",
        `live stream ${this.#outbox.stream}: ${inMemory} batches wait in memory for ${this.#full ? "room in the full outbox" : "the outbox"}; nothing of this call was enqueued (await writable())`,
      );
    return undefined;
  }

  #check(): void {
    const refusal = this.#refusal();
    if (refusal) throw refusal;
  }

  /**
   * Resolves when an enqueue would be taken (rejects if the stream is closed). After a batch was cut it
   * first lets the event loop turn once: an app looping on `await writable()` otherwise runs on microtasks
   * alone, and no batch is posted (nor the page painted) until it stops.
   */
  async writable(): Promise<void> {
    if (this.#cutSinceYield) {
      this.#cutSinceYield = false;
      await nextTask();
    }
    for (;;) {
      const refusal = this.#refusal();
      if (!refusal) return;
      if (this.#closed) throw refusal;
      await this.#nextChange();
    }
  }

  #added(n: number): void {
    this.#buffered += n;
    if (this.#buffered >= this.#options.maxBatchPoints) void this.#cut();
    else this.#timer ??= setTimeout(() => void this.#cut(), this.#options.maxDelayMs);
  }

  enqueue(channel: string, timestamp: Timestamp, value: StreamValue, tags?: Record<string, string>): void {
    this.#check();
    if (this.#noJson && isJsonStruct(value)) refuseJson(channel);
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
    // A batch is of one kind (the writer refuses a mixed one): its first value tells.
    if (this.#noJson && isJsonStruct(values[0])) refuseJson(channel);
    this.#writer.enqueueBatch(channel, timestamps, values, tags);
    this.#added(timestamps.length);
  }

  enqueueFromDict(
    timestamp: Timestamp,
    values: Record<string, StreamValue>,
    tags?: Record<string, string>,
  ): void {
    this.#check();
    if (this.#noJson)
      for (const [channel, value] of Object.entries(values)) if (isJsonStruct(value)) refuseJson(channel);
    this.#writer.enqueueFromDict(timestamp, values, tags);
    this.#added(Object.keys(values).length);
  }

  /** Ends the open batch: its file joins the queue for the outbox. */
  async #cut(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#buffered === 0) return;
    this.#cutSinceYield = true;
    const sink = this.#sink;
    const points = this.#buffered;
    this.#sink = this.#buffers.sink();
    // The batch's points are encoded now; its file is complete once `written` resolves.
    const written = this.#writer.rotate(this.#sink);
    written.catch(() => {}); // awaited in turn below
    this.#buffered = 0;
    const id = ulid();
    this.#closing++;
    this.#closingPoints += points;
    // Batches join the queue in the order they were cut, however long each writer takes to close.
    this.#cutting = this.#cutting.then(async () => {
      try {
        await written;
      } finally {
        this.#closing--;
        this.#closingPoints -= points;
      }
      this.#waiting.push({ id, bytes: sink.bytes(), points });
      this.#storing ??= this.#storeAll().finally(() => {
        this.#storing = undefined;
      });
    });
    await this.#cutting;
  }

  /** Moves waiting batches into the outbox, in order, as its cap and policy allow. */
  async #storeAll(): Promise<void> {
    let delay = this.#options.backoffMs;
    while (this.#waiting.length > 0 && !this.#stopped) {
      const batch = this.#waiting[0]!;
      let dropped: OutboxBatch[];
      try {
        this.#maxBytes ??= await defaultOutboxBytes(this.#outbox.storage);
        const maxBytes = this.#maxBytes;
        // drop-oldest must not drop the batch the sender is posting: no send starts while it chooses.
        dropped =
          this.#policy === "drop-oldest"
            ? await this.#sender.exclusive(() =>
                this.#outbox.store(batch, {
                  maxBytes,
                  policy: "drop-oldest",
                  inFlight: this.#sender.inFlight,
                }),
              )
            : await this.#outbox.store(batch, { maxBytes, policy: this.#policy });
        this.#sender.forget(dropped.map((b) => b.id));
        this.#buffers.forget(dropped.map((b) => b.id));
      } catch (err) {
        if (this.#stopped) return;
        if (isAvaError(err, "QUOTA_EXCEEDED")) {
          this.#lastError = err;
          if (!this.#full) {
            this.#full = true;
            this.#emit("full", { policy: this.#policy, error: err });
          }
          await this.#nextChange(); // a batch acknowledged makes room
        } else {
          // The outbox's storage failed: the batch stays in memory and is tried again.
          this.#failed(err);
          await new Promise((r) => setTimeout(r, delay));
          delay = Math.min(delay * 2, this.#options.maxBackoffMs);
        }
        continue;
      }
      delay = this.#options.backoffMs;
      this.#full = false;
      this.#waiting.shift();
      this.#mine.add(batch.id);
      // The bytes stay lent while someone holds them — the sender's cache, a memory outbox (which keeps the
      // very bytes) — until the batch leaves the outbox; a batch only on disk frees them now.
      if (this.#sender.cache(batch.id, batch.bytes) || this.#outbox.storage.descriptor.kind === "memory")
        this.#buffers.lend(batch.id, batch.bytes);
      else this.#buffers.release(batch.bytes);
      this.#sender.wake();
      const stored = this.#outbox.peek().batches.find((b) => b.id === batch.id);
      this.#emit("stored", stored);
      if (dropped.length > 0)
        this.#emit("dropped", { batches: dropped, points: dropped.reduce((n, b) => n + b.points, 0) });
      this.#notify();
    }
  }

  /**
   * Sends everything enqueued so far; resolves once every batch of this stream — and every batch its outbox
   * held when the stream was created — has left the outbox (acknowledged, refused or dropped).
   */
  async flush(): Promise<void> {
    await this.#cut();
    await this.#cutting;
    await this.#resumed;
    for (;;) {
      if (this.#stopped)
        throw new AvaError("CANCELLED", "the live stream was aborted before its batches were sent");
      // Only batches stored before the read can be judged by it: one stored while it ran is missing from
      // what it returns without having been sent.
      const stored = [...this.#mine];
      const held = new Set((await this.#outbox.state()).batches.map((b) => b.id));
      for (const id of stored) if (!held.has(id)) this.#mine.delete(id);
      if (this.#waiting.length === 0 && this.#mine.size === 0) return;
      await this.#nextChange();
    }
  }

  /** Flushes, then refuses further points and stops sending. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.flush();
    this.#closed = true;
    await this.#stop();
  }

  /**
   * Stops at once. Batches already in the outbox stay there, for a later stream of the same outbox and name;
   * points not yet in it (the open batch, batches waiting in memory) are lost.
   */
  async abort(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#stop();
  }

  async #stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#unsubscribe();
    (globalThis as { removeEventListener?: typeof removeEventListener }).removeEventListener?.(
      "online",
      this.#onOnline,
    );
    this.#notify();
    await this.#sender.stop();
    await this.#storing;
  }

  status(): LiveStreamStatus {
    const outbox = this.#outbox.peek();
    const navigatorOnline = (globalThis.navigator as Navigator | undefined)?.onLine !== false;
    return {
      pointsBuffered: this.#buffered + this.#closingPoints + this.#waiting.reduce((n, b) => n + b.points, 0),
      batchesBuffered: this.#waiting.length + this.#closing,
      batchesInOutbox: outbox.batches.length,
      bytesInOutbox: outboxBytes(outbox),
      pointsInOutbox: outbox.batches.reduce((n, b) => n + b.points, 0),
      batchesPending: this.#waiting.length + this.#closing + outbox.batches.length,
      ...this.#status,
      batchesDropped: outbox.droppedBatches,
      pointsDropped: outbox.droppedPoints,
      full: this.#full,
      online: navigatorOnline && this.#online,
      lastError: this.#lastError,
    };
  }
}

/** After the tasks already queued (I/O among them): a message to itself, with no timer clamp. */
function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      port2.close();
      resolve();
    };
    port2.postMessage(undefined);
  });
}

function isJsonStruct(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value);
}

function refuseJson(channel: string): never {
  throw new AvaError(
    "INVALID_ARGUMENT",
    `channel ${JSON.stringify(channel)}: the "nominal" transport cannot send JSON points (Nominal's live write request has no such type); nothing of this call was enqueued`,
  );
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
  const tls = options.tls !== undefined && { tls: options.tls };
  if (transport === "avro") return avroTransport({ url, headers, ...timeout, ...tls });
  return nominalTransport({ url, datasetRid: datasetRid as string, headers, ...timeout, ...tls });
}

export function createLiveStream(options: LiveStreamOptions): LiveStream {
  return new LiveStream(options);
}
