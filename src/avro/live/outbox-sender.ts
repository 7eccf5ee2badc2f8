// Sends a stream's outbox, oldest batch first, while it holds the sender lock. Up to `maxInFlight` batches
// are on their way at once — the next request is posted while the server still appends the previous one, so
// the sender's work and the server's overlap — but their answers are taken in outbox order (FIFO): a batch
// is reported sent and leaves the outbox only once it and every batch before it were acknowledged (or
// refused for good). When a send fails, the answers of the batches posted after it are not used: those
// batches stay in the outbox and are posted again after the backoff, from the failed one on; the server's
// idempotency keys make the resends safe. Whatever the outbox holds when the sender starts — a page reload,
// a process restart — is sent first: resuming is the same loop as sending.
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
  /** Batches posted before the first of them is answered. */
  maxInFlight: number;
}

/**
 * How one attempt at a batch ended. "retry": the send failed (tried again); "failed": reading the batch back
 * from the outbox failed (a storage failure: waited out, then tried again); "refused": for good, `reached`
 * when the server said so; "skipped": it left the outbox meanwhile, or the sender stopped.
 */
type Outcome =
  | { kind: "sent" }
  | { kind: "skipped" }
  | { kind: "retry"; error: unknown }
  | { kind: "failed"; error: unknown }
  | { kind: "refused"; error: unknown; reached: boolean };

/** A batch on its way; flights are answered in the order they were posted. */
interface Flight {
  batch: OutboxBatch;
  /** Never rejects. */
  outcome: Promise<Outcome>;
  settled: Outcome | undefined;
}

export interface SenderHooks {
  sent(batch: OutboxBatch): void;
  retry(batch: OutboxBatch, error: unknown): void;
  refused(batch: OutboxBatch, error: unknown): void;
  /** Something the sender cannot get past by retrying the batch (a storage failure); it waits and tries again. */
  failed(error: unknown): void;
  /** Whether the last attempt reached the server. */
  reached(ok: boolean): void;
  /** Batches left the outbox (acknowledged or refused; removal committed, files deleted): flush() waiters look again. */
  removed(batches: readonly OutboxBatch[]): void;
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
  /** Posted and not yet answered, oldest first (at most maxInFlight: their batches are not chosen again). */
  readonly #flights: Flight[] = [];
  /** Resolves once the newest flight's request is on the wire (or that flight ended): the next one's turn. */
  #lastOnWire: Promise<void> = Promise.resolve();
  /** Batches whose request is on the wire (drop-oldest leaves them alone). */
  readonly #inFlight = new Set<string>();
  /** A send failed: no new flight starts until those already posted are answered and the backoff is over. */
  #failing = false;
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

  /** The batches being sent now. */
  get inFlight(): ReadonlySet<string> {
    return this.#inFlight;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /** Keeps a just-stored batch's bytes for its send, if the memory budget allows (then true). */
  cache(id: string, bytes: Uint8Array): boolean {
    if (this.#cache.size >= this.#options.maxCachedBatches) return false;
    this.#cache.set(id, bytes);
    return true;
  }

  /**
   * Runs `fn` while no new send starts, so a batch it removes (drop-oldest) is not one the sender is about
   * to post: `inFlight` read inside `fn` holds the only batches that may be on their way.
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
        this.#answerSettled();
        if (this.#failing && this.#flights.length === 0) {
          await this.#backoff();
          this.#failing = false;
          continue;
        }
        const state = await this.#outbox.state();
        if (this.#cache.size > 0) {
          // Bytes of batches that left the outbox some other way (dropped, sent by another sender) go. (One
          // cached just after this state was read is dropped too: it is then read back from the outbox.)
          const held = new Set(state.batches.map((b) => b.id));
          for (const id of this.#cache.keys()) if (!held.has(id)) this.#cache.delete(id);
        }
        const next = state.batches.find((b) => !this.#done.has(b.id) && !this.#isFlying(b.id));
        if (!next && this.#flights.length === 0) {
          idleSince ??= Date.now();
          // An empty outbox keeps the lock a little, so a steady stream does not take it for every batch.
          if (Date.now() - idleSince >= this.#options.lockPollMs && !this.#removing)
            await this.#lock.release();
          await this.#sleep(this.#options.lockPollMs, "idle");
          continue;
        }
        idleSince = undefined;
        const room = !this.#failing && this.#flights.length < this.#options.maxInFlight;
        if (next && room && (await this.#mayPost())) {
          this.#post(next, signal);
          continue;
        }
        if (this.#flights.length === 0) continue; // #mayPost waited (no lock, or offline)
        // Wait for the oldest answer; with room for another flight, a new batch in the outbox wakes us too.
        const oldest = this.#flights[0]!.outcome;
        if (room && !next) {
          await Promise.race([oldest, this.#sleep(this.#options.lockPollMs, "idle")]);
          this.#wakeIdle?.();
        } else await oldest;
      } catch (err) {
        if (signal.aborted) break;
        // The outbox's storage failed (a read, a commit): say so, wait, try again — the batches stay put.
        this.#hooks.failed(err);
        await this.#backoff();
      }
    }
    await Promise.all(this.#flights.map((f) => f.outcome));
  }

  /** Whether a send may start now: this sender holds the lock and the browser is online (else it waited). */
  async #mayPost(): Promise<boolean> {
    const waiting = this.#flights.length > 0; // then the oldest answer is awaited instead of a timer
    if (!(await this.#lock.tryHold())) {
      if (!waiting) await this.#sleep(this.#options.lockPollMs, "idle");
      return false;
    }
    if ((globalThis.navigator as Navigator | undefined)?.onLine === false) {
      if (waiting) return false;
      this.#hooks.reached(false);
      await this.#sleep(this.#options.maxBackoffMs, "retry"); // the "online" event cuts this short
      return false;
    }
    return true;
  }

  async #backoff(): Promise<void> {
    await this.#sleep(this.#delay, "retry");
    this.#delay = Math.min(this.#delay * 2, this.#options.maxBackoffMs);
  }

  #post(batch: OutboxBatch, signal: AbortSignal): void {
    const flight: Flight = { batch, outcome: undefined!, settled: undefined };
    const turn = this.#lastOnWire;
    let onWire!: () => void;
    this.#lastOnWire = new Promise<void>((resolve) => {
      onWire = resolve;
    });
    flight.outcome = this.#attempt(batch, signal, turn, onWire)
      .finally(onWire)
      .then((o) => (flight.settled = o));
    this.#flights.push(flight);
  }

  /** Whether `id` was posted and is not answered yet (a scan of at most maxInFlight flights). */
  #isFlying(id: string): boolean {
    return this.#flights.some((f) => f.batch.id === id);
  }

  /** Takes the answers that arrived, oldest flight first, stopping at the first not yet answered. */
  #answerSettled(): void {
    while (this.#flights[0]?.settled) {
      const { batch, settled } = this.#flights.shift()!;
      const outcome = settled!;
      // After a failure, later answers are not taken: their batches are posted again, in order.
      if (this.#failing || outcome.kind === "skipped") continue;
      if (outcome.kind === "sent") {
        this.#hooks.reached(true);
        this.#delay = this.#options.backoffMs;
        this.#finish(batch, "sent");
      } else if (outcome.kind === "refused") {
        if (outcome.reached) this.#hooks.reached(true);
        this.#finish(batch, "refused", outcome.error);
      } else if (outcome.kind === "failed") {
        this.#hooks.failed(outcome.error);
        this.#failing = true;
      } else {
        this.#hooks.reached(false);
        this.#hooks.retry(batch, outcome.error);
        this.#failing = true;
      }
    }
  }

  /**
   * One send of `batch`; never throws (a storage failure reading it back is a retry). Its bytes are read
   * while earlier flights are still being read, but its request waits for `turn` — the previous flight's
   * request is on the wire, or that flight ended — so requests go out in outbox order.
   */
  async #attempt(
    batch: OutboxBatch,
    signal: AbortSignal,
    turn: Promise<void>,
    onWire: () => void,
  ): Promise<Outcome> {
    let bytes: Uint8Array | undefined;
    try {
      bytes = this.#cache.get(batch.id) ?? (await this.#outbox.read(batch));
      if (!bytes) {
        // Removed since the state was read (acknowledged by another sender, or dropped): look again. A batch
        // listed by the newest state with its file gone is damage: refuse it, so the queue moves on.
        if ((await this.#outbox.state()).batches.some((b) => b.id === batch.id))
          return {
            kind: "refused",
            error: new AvaError("NOT_FOUND", `outbox file ${batch.path} is missing`),
            reached: false,
          };
        return { kind: "skipped" };
      }
    } catch (err) {
      return { kind: "failed", error: err };
    }
    await turn;
    while (this.#paused) await this.#paused;
    // Dropped since it was chosen (the state this instance holds knows its own commits at once).
    if (signal.aborted || !this.#outbox.peek().batches.some((b) => b.id === batch.id))
      return { kind: "skipped" };
    this.#inFlight.add(batch.id);
    try {
      const request = this.#transport({ id: batch.id, bytes, points: batch.points }, signal);
      onWire();
      await request;
      return { kind: "sent" };
    } catch (err) {
      if (signal.aborted) return { kind: "skipped" };
      return isRetryable(err)
        ? { kind: "retry", error: err }
        : { kind: "refused", error: err, reached: true };
    } finally {
      this.#inFlight.delete(batch.id);
    }
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
      this.#hooks.removed(batches);
    }
  }
}
