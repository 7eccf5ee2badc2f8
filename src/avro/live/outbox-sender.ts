// Sends a stream's outbox, oldest batch first, one at a time (FIFO), while it holds the sender lock. A batch
// leaves the outbox only when the server acknowledged it (or refused it for good); a failed send is retried
// with exponential backoff, cut short by `online()`. Whatever the outbox holds when the sender starts — a
// page reload, a process restart — is sent first: resuming is the same loop as sending.
import { AvaError } from "../../errors.js";
import type { OutboxBatch } from "../../storage/catalog/model.js";
import type { Outbox } from "./outbox.js";
import type { SenderLock } from "./sender-lock.js";
import { isRetryable, type Transport } from "./transport.js";

export interface SenderOptions {
  backoffMs: number;
  maxBackoffMs: number;
  /** How often a sender without the lock looks again, and how long an empty outbox keeps it. */
  lockPollMs: number;
  /** Batches whose bytes are kept in memory for the send; later ones are read back from the outbox. */
  maxCachedBatches: number;
}

export interface SenderHooks {
  sent(batch: OutboxBatch): void;
  retry(batch: OutboxBatch, error: unknown): void;
  refused(batch: OutboxBatch, error: unknown): void;
  /** Something the sender cannot get past by retrying the batch (a storage failure); it waits and tries again. */
  failed(error: unknown): void;
  /** Whether the last attempt reached the server. */
  reached(ok: boolean): void;
  /** Batches left the outbox (acknowledged or refused): flush() waiters look again. */
  removed(): void;
}

export class OutboxSender {
  readonly #outbox: Outbox;
  readonly #transport: Transport;
  readonly #lock: SenderLock;
  readonly #options: SenderOptions;
  readonly #hooks: SenderHooks;
  readonly #cache = new Map<string, Uint8Array>();
  /** Acknowledged (or refused) batches whose removal is not committed yet: never sent again from here. */
  readonly #done = new Map<string, OutboxBatch>();
  #removing: Promise<void> | undefined;
  readonly #abort = new AbortController();
  #wakeIdle: (() => void) | undefined;
  #wakeRetry: (() => void) | undefined;
  #delay: number;
  #inFlight: string | undefined;
  /** While set, no new send starts (a drop-oldest store is choosing what to drop). */
  #paused: Promise<unknown> | undefined;
  #loop: Promise<void> | undefined;

  constructor(
    outbox: Outbox,
    transport: Transport,
    lock: SenderLock,
    options: SenderOptions,
    hooks: SenderHooks,
  ) {
    this.#outbox = outbox;
    this.#transport = transport;
    this.#lock = lock;
    this.#options = options;
    this.#hooks = hooks;
    this.#delay = options.backoffMs;
  }

  /** The batch being sent now, if any. */
  get inFlight(): string | undefined {
    return this.#inFlight;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /** Keeps a just-stored batch's bytes for its send, if the memory budget allows. */
  cache(id: string, bytes: Uint8Array): void {
    if (this.#cache.size < this.#options.maxCachedBatches) this.#cache.set(id, bytes);
  }

  /**
   * Runs `fn` while no new send starts, so a batch it removes (drop-oldest) is not one the sender is about
   * to post: `inFlight` read inside `fn` is the only batch that may be on its way.
   */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    while (this.#paused) await this.#paused;
    const running = fn();
    this.#paused = running.catch(() => {});
    try {
      return await running;
    } finally {
      this.#paused = undefined;
    }
  }

  /** Batches removed by someone else (dropped): their cached bytes go. */
  forget(ids: readonly string[]): void {
    for (const id of ids) this.#cache.delete(id);
  }

  /** Something new may be in the outbox. */
  wake(): void {
    this.#wakeIdle?.();
  }

  /** The network is back: retry now, from the first delay. */
  online(): void {
    this.#delay = this.#options.backoffMs;
    this.#wakeRetry?.();
    this.#wakeIdle?.();
  }

  /** Stops sending (an in-flight request is abandoned; its batch stays in the outbox) and lets the lock go. */
  async stop(): Promise<void> {
    this.#abort.abort();
    this.#wakeIdle?.();
    this.#wakeRetry?.();
    await this.#loop;
    await this.#removing;
    await this.#lock.release().catch(() => {});
  }

  #sleep(ms: number, kind: "idle" | "retry"): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (kind === "idle") this.#wakeIdle = undefined;
        else this.#wakeRetry = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      if (kind === "idle") this.#wakeIdle = done;
      else this.#wakeRetry = done;
    });
  }

  async #run(): Promise<void> {
    const signal = this.#abort.signal;
    let idleSince: number | undefined;
    while (!signal.aborted) {
      try {
        const state = await this.#outbox.state();
        const next = state.batches.find((b) => !this.#done.has(b.id));
        if (!next) {
          idleSince ??= Date.now();
          // An empty outbox keeps the lock a little, so a steady stream does not take it for every batch.
          if (Date.now() - idleSince >= this.#options.lockPollMs && !this.#removing)
            await this.#lock.release();
          await this.#sleep(this.#options.lockPollMs, "idle");
          continue;
        }
        idleSince = undefined;
        if (!(await this.#lock.tryHold())) {
          await this.#sleep(this.#options.lockPollMs, "idle");
          continue;
        }
        if ((globalThis.navigator as Navigator | undefined)?.onLine === false) {
          this.#hooks.reached(false);
          await this.#sleep(this.#options.maxBackoffMs, "retry"); // the "online" event cuts this short
          continue;
        }
        await this.#send(next, signal);
      } catch (err) {
        if (signal.aborted) break;
        // The outbox's storage failed (a read, a commit): say so, wait, try again — the batches stay put.
        this.#hooks.failed(err);
        await this.#backoff();
      }
    }
  }

  async #backoff(): Promise<void> {
    await this.#sleep(this.#delay, "retry");
    this.#delay = Math.min(this.#delay * 2, this.#options.maxBackoffMs);
  }

  async #send(batch: OutboxBatch, signal: AbortSignal): Promise<void> {
    const bytes = this.#cache.get(batch.id) ?? (await this.#outbox.read(batch));
    if (!bytes) {
      // Removed since the state was read (acknowledged by another sender, or dropped): look again. A batch
      // listed by the newest state with its file gone is damage: refuse it, so the queue moves on.
      if ((await this.#outbox.state()).batches.some((b) => b.id === batch.id))
        this.#finish(batch, "refused", new AvaError("NOT_FOUND", `outbox file ${batch.path} is missing`));
      return;
    }
    while (this.#paused) await this.#paused;
    // Dropped since it was chosen (the state this instance holds knows its own commits at once).
    if (!this.#outbox.peek().batches.some((b) => b.id === batch.id)) return;
    this.#inFlight = batch.id;
    try {
      await this.#transport({ id: batch.id, bytes, points: batch.points }, signal);
    } catch (err) {
      if (signal.aborted) return;
      if (!isRetryable(err)) {
        this.#hooks.reached(true);
        this.#finish(batch, "refused", err);
        return;
      }
      this.#hooks.reached(false);
      this.#hooks.retry(batch, err);
      await this.#backoff();
      return;
    } finally {
      this.#inFlight = undefined;
    }
    this.#hooks.reached(true);
    this.#delay = this.#options.backoffMs;
    this.#finish(batch, "sent");
  }

  /** The batch is done with: report it and remove it from the outbox in the background (batched). */
  #finish(batch: OutboxBatch, how: "sent" | "refused", error?: unknown): void {
    this.#cache.delete(batch.id);
    this.#done.set(batch.id, batch);
    if (how === "sent") this.#hooks.sent(batch);
    else this.#hooks.refused(batch, error);
    this.#removing ??= this.#removeDone().finally(() => {
      this.#removing = undefined;
    });
  }

  /** Commits the removal of every finished batch, as many per commit as have gathered. */
  async #removeDone(): Promise<void> {
    while (this.#done.size > 0) {
      const batches = [...this.#done.values()];
      try {
        await this.#outbox.remove(batches);
      } catch (err) {
        if (this.#abort.signal.aborted) return;
        // Still acknowledged: if the removal never lands, a restart re-sends and the server dedupes.
        this.#hooks.failed(err);
        await new Promise((r) => setTimeout(r, this.#options.backoffMs));
        continue;
      }
      for (const b of batches) this.#done.delete(b.id);
      this.#hooks.removed();
    }
  }
}
