// The live feed: the rig's 10 scalar channels sampled at 100 Hz on the page and enqueued into a live stream.
// A tick enqueues every sample instant since the last one, each as one `enqueueFromDict` call (all channels
// or none): when the stream refuses (QUOTA_EXCEEDED, its memory buffer is full), the instant stays for the
// next tick, so a slow or absent network delays points but never loses one.
import * as ava from "avalanche-web";
import { CHANNELS, sample } from "../channels.js";

/** The channels streamed: every one of one value (the wheel-speed array stays local). */
export const LIVE_CHANNELS = CHANNELS.filter((c) => c.kind !== "double_array").map((c) => c.name);

export class LiveFeed {
  /** Points taken by the stream since the page opened. */
  enqueued = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  #next = 0;
  #index = 0;

  constructor(
    readonly stream: ava.avro.LiveStream,
    readonly hz = 100,
  ) {}

  get running(): boolean {
    return this.#timer !== undefined;
  }

  start(): void {
    if (this.#timer !== undefined) return;
    const stepMs = 1000 / this.hz;
    this.#next = Math.ceil(Date.now() / stepMs) * stepMs;
    this.#timer = setInterval(() => this.#tick(stepMs), 100);
  }

  /** Stops sampling; what was enqueued is still sent (the stream cuts its open batch after maxDelayMs). */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #tick(stepMs: number): void {
    const now = Date.now();
    for (; this.#next <= now; this.#next += stepMs, this.#index++) {
      const s = sample(this.#next, this.#index) as Record<string, ava.avro.StreamValue>;
      const values: Record<string, ava.avro.StreamValue> = {};
      for (const name of LIVE_CHANNELS) values[name] = s[name]!;
      try {
        this.stream.enqueueFromDict(BigInt(Math.round(this.#next)) * 1_000_000n, values);
      } catch (err) {
        if (ava.isAvaError(err, "QUOTA_EXCEEDED")) return; // this instant waits for room
        throw err;
      }
      this.enqueued += LIVE_CHANNELS.length;
    }
  }
}
