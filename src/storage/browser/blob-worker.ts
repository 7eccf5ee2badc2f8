// A dedicated Worker started from a Blob URL holding its few lines of source, so it ships with the library
// and works after any bundler without configuration. Requests are messages with an id; the Worker answers
// `{ id, ... }` or `{ id, error }`. Where it cannot start (a Content-Security-Policy without
// `worker-src blob:`) it is marked unavailable and callers take their own way; a Worker that dies fails
// what it holds, and the next request starts a new one. The OPFS writer and the checkpoint writer are two.
import { AvaError } from "../../errors.js";

export interface WorkerReply {
  id: number;
  error?: { name: string; message: string };
}

export abstract class BlobWorker<Reply extends WorkerReply, Result> {
  #worker: Worker | undefined;
  /** This Worker answered once: it runs (an error before that means it could not load). */
  #answered = false;
  /** Set once the Worker could not start: every later request takes the caller's own way. */
  #unavailable = false;
  #next = 0;
  readonly #pending = new Map<number, { resolve: (r: Result) => void; reject: (e: unknown) => void }>();

  /**
   * @param source the Worker's whole source
   * @param name the Worker's name, as the browser's tools show it
   * @param what what it is, in errors ("the OPFS writer")
   */
  constructor(
    private readonly source: string,
    private readonly name: string,
    private readonly what: string,
  ) {}

  /** What a successful reply resolves its request with. */
  protected abstract resultOf(reply: Reply): Result;

  /** Requests sent to the Worker and not answered yet. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Whether a Worker can take requests here (Worker and Blob URLs exist, and it has not failed to start). */
  get available(): boolean {
    return (
      !this.#unavailable &&
      typeof Worker === "function" &&
      typeof URL.createObjectURL === "function" &&
      typeof Blob === "function"
    );
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const url = URL.createObjectURL(new Blob([this.source], { type: "text/javascript" }));
    let worker: Worker;
    try {
      worker = new Worker(url, { name: this.name });
    } catch (err) {
      this.#unavailable = true;
      throw err;
    } finally {
      URL.revokeObjectURL(url); // resolved when the Worker is constructed
    }
    this.#answered = false; // a Worker started after one died can still fail to load
    worker.onmessage = ({ data }: MessageEvent<Reply>) => {
      this.#answered = true;
      const waiter = this.#pending.get(data.id);
      if (!waiter) return;
      this.#pending.delete(data.id);
      if (data.error) {
        const err = new Error(data.error.message);
        err.name = data.error.name;
        waiter.reject(err);
      } else waiter.resolve(this.resultOf(data));
    };
    // A Worker that fails to load (a CSP refusing blob: Workers) or dies fails what it holds; later
    // requests start a new Worker (or, when it never loaded, are refused: the caller takes its own way).
    worker.onerror = (event) => {
      event.preventDefault();
      if (!this.#answered) this.#unavailable = true;
      this.#fail(
        new AvaError("IO_ERROR", `${this.what} Worker failed: ${event.message || "it did not start"}`),
      );
    };
    this.#worker = worker;
    return worker;
  }

  #fail(err: unknown): void {
    this.#worker?.terminate();
    this.#worker = undefined;
    const waiters = [...this.#pending.values()];
    this.#pending.clear();
    for (const w of waiters) w.reject(err);
  }

  /**
   * Sends `message` (with an id added) and resolves with the reply's result. `bytes` are copied and the
   * copy's buffer transferred as `message.bytes`: the caller keeps its own. A Worker that cannot be
   * constructed rejects it (as one that fails to load does), never throws: callers fall back on rejection.
   */
  protected async request(message: Record<string, unknown>, bytes: Uint8Array): Promise<Result> {
    const worker = this.#start();
    const id = this.#next++;
    const copy = bytes.slice();
    return new Promise<Result>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ ...message, id, bytes: copy.buffer }, [copy.buffer]);
    });
  }

  /** Ends the Worker; requests it held fail (tests use this to kill one midway). */
  terminate(): void {
    this.#fail(new AvaError("IO_ERROR", `${this.what} Worker was terminated`));
  }
}
