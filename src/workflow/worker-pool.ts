// A pool of workers (Web Workers or worker threads behind one small port interface). Each worker runs one
// node at a time; a node waits for an idle worker. A worker that dies fails only the node it was running,
// with a clear error, and the pool starts a new one for the next node.
import { AvaError } from "../errors.js";
import type { StorageDescriptor } from "../storage/types.js";
import { decodeValue, encodeValue, type ModelLookup } from "./crossing.js";
import { fromErrorInfo } from "./errors.js";
import type { NodeEvents, NodeOutcome, NodeTask } from "./invoke.js";
import type { FromWorker, ToWorker } from "./worker-protocol.js";

export interface WorkerPort {
  post(message: ToWorker, transfer: ArrayBuffer[]): void;
  /** Calls `onMessage` for each message, `onDeath` once if the worker dies (uncaught error, exit). */
  listen(onMessage: (message: FromWorker) => void, onDeath: (reason: string) => void): void;
  terminate(): void;
}

interface Job {
  id: number;
  task: NodeTask;
  storage: StorageDescriptor | undefined;
  signal: AbortSignal;
  movable: readonly boolean[];
  models: ModelLookup | undefined;
  events: NodeEvents | undefined;
  resolve(outcome: NodeOutcome): void;
  reject(err: Error): void;
}

interface Slot {
  port: WorkerPort;
  job: Job | undefined;
}

export class WorkerPool {
  readonly #slots = new Set<Slot>();
  readonly #queue: Job[] = [];
  #nextId = 1;
  #closed = false;

  constructor(
    readonly size: number,
    private readonly spawn: () => WorkerPort,
  ) {
    if (!Number.isInteger(size) || size < 1)
      throw new AvaError("INVALID_ARGUMENT", `worker pool size must be a positive integer, got ${size}`);
  }

  run(
    task: NodeTask,
    storage: StorageDescriptor | undefined,
    signal: AbortSignal,
    movable: readonly boolean[] = [],
    models?: ModelLookup,
    events?: NodeEvents,
  ): Promise<NodeOutcome> {
    if (this.#closed) return Promise.reject(new AvaError("UNAVAILABLE", "this worker executor is closed"));
    return new Promise((resolve, reject) => {
      this.#queue.push({
        id: this.#nextId++,
        task,
        storage,
        signal,
        movable,
        models,
        events,
        resolve,
        reject,
      });
      this.#dispatch();
    });
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      let slot = [...this.#slots].find((s) => !s.job);
      if (!slot && this.#slots.size < this.size) {
        try {
          slot = this.#start();
        } catch (err) {
          // the app's worker() threw or gave no worker: the node fails, the pool stays usable
          const job = this.#queue.shift()!;
          job.reject(
            new AvaError("INVALID_ARGUMENT", `node ${job.task.slug}: no worker started: ${errorText(err)}`, {
              cause: err,
            }),
          );
          continue;
        }
      }
      if (!slot) return;
      this.#assign(slot, this.#queue.shift()!);
    }
  }

  #start(): Slot {
    const slot: Slot = { port: this.spawn(), job: undefined };
    this.#slots.add(slot);
    slot.port.listen(
      (message) => {
        const job = slot.job;
        if (!job || message.id !== job.id) return;
        if (message.type === "log") {
          job.events?.log?.(message.line);
          return;
        }
        slot.job = undefined;
        if (message.ok)
          job.resolve({ value: decodeValue(message.value, job.models), lineage: message.lineage });
        else job.reject(fromErrorInfo(message.error));
        this.#dispatch();
      },
      (reason) => {
        this.#slots.delete(slot);
        const job = slot.job;
        slot.job = undefined;
        job?.reject(
          new AvaError("WORKER_CRASHED", `the worker running node ${job.task.slug} died: ${reason}`),
        );
        this.#dispatch(); // a replacement starts for whatever is queued
      },
    );
    return slot;
  }

  #assign(slot: Slot, job: Job): void {
    slot.job = job;
    const onAbort = () => slot.port.post({ type: "cancel", id: job.id }, []);
    job.signal.addEventListener("abort", onAbort, { once: true });
    const finish = () => job.signal.removeEventListener("abort", onAbort);
    const { resolve, reject } = job;
    job.resolve = (v) => {
      finish();
      resolve(v);
    };
    job.reject = (e) => {
      finish();
      reject(e);
    };
    const input = encodeValue(job.task.input);
    const args = job.task.args.map((a, i) => encodeValue(a, { move: job.movable[i] === true }));
    const transfer = [...input.transfer, ...args.flatMap((a) => a.transfer)];
    const task: NodeTask = { ...job.task, input: input.value, args: args.map((a) => a.value) };
    try {
      slot.port.post({ type: "run", id: job.id, task, storage: job.storage }, transfer);
    } catch (err) {
      slot.job = undefined;
      job.reject(
        new AvaError(
          "INVALID_ARGUMENT",
          `node ${job.task.slug}: its arguments cannot cross into a worker: ${String(err)}`,
          {
            cause: err,
          },
        ),
      );
    }
  }

  /** Terminates every worker; nodes still queued or running fail. */
  close(): void {
    this.#closed = true;
    for (const slot of this.#slots) {
      slot.port.terminate();
      slot.job?.reject(new AvaError("UNAVAILABLE", "the worker executor was closed"));
    }
    this.#slots.clear();
    for (const job of this.#queue.splice(0))
      job.reject(new AvaError("UNAVAILABLE", "the worker executor was closed"));
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
