// The page's side of the chart Worker: one request in flight; a newer request replaces any still waiting,
// so a burst of zooms or commits costs one extra read, not a queue of stale ones.
import type { DownsampleReply, DownsampleRequest } from "./downsample.worker.js";

type Ask = Omit<DownsampleRequest, "id">;
export type Answer = Extract<DownsampleReply, { x: number[] }>;
interface Waiting {
  ask: Ask;
  resolve: (r: Answer | undefined) => void;
  reject: (e: Error) => void;
}

export class DownsampleClient {
  readonly #worker = new Worker(new URL("./downsample.worker.ts", import.meta.url), { type: "module" });
  #next = 1;
  #busy = false;
  #waiting: Waiting | undefined;
  #reply: ((r: DownsampleReply) => void) | undefined;

  constructor() {
    this.#worker.onmessage = (e: MessageEvent<DownsampleReply>) => this.#reply?.(e.data);
  }

  /** Resolves with the reduced window, or undefined when a newer request superseded this one. */
  request(ask: Ask): Promise<Answer | undefined> {
    return new Promise((resolve, reject) => {
      this.#waiting?.resolve(undefined);
      this.#waiting = { ask, resolve, reject };
      if (!this.#busy) void this.#pump();
    });
  }

  async #pump(): Promise<void> {
    this.#busy = true;
    while (this.#waiting) {
      const { ask, resolve, reject } = this.#waiting;
      this.#waiting = undefined;
      const id = this.#next++;
      const reply = await new Promise<DownsampleReply>((done) => {
        this.#reply = (r) => r.id === id && done(r);
        this.#worker.postMessage({ ...ask, id } satisfies DownsampleRequest);
      });
      if ("error" in reply) reject(new Error(reply.error));
      else resolve(reply);
    }
    this.#busy = false;
  }
}
