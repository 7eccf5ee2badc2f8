// `serveBullmq({ connection, queue, workflows })`: a worker process's side of `bullmqExecutor`. It takes jobs
// from the queue, finds each workflow by name and node by slug among the workflows it serves, reopens the
// run's storage from the job's descriptor and runs the node there. A worker that dies mid-node leaves its job
// locked; when the lock lapses BullMQ's stalled-job check hands the job to another worker, and the node's
// single catalog commit makes that rerun safe.
import type { Job, Worker } from "bullmq";
import { AvaError, isAvaError } from "../../../errors.js";
import { loadParquetWasm } from "../../../parquet/parquet.js";
import { nodeStorage } from "../../../storage/node/node-storage.js";
import type { Storage, StorageDescriptor } from "../../../storage/types.js";
import { reopenWarehouse } from "../../../storage/warehouse/warehouse-storage.js";
import { toErrorInfo } from "../../errors.js";
import type { NodeTask } from "../../invoke.js";
import type { Workflow } from "../../workflow.js";
import { nodeRunner, workflowsByName } from "../../worker-runtime.js";
import {
  cancelChannel,
  cancelKey,
  connectionOptions,
  type JobData,
  type JobProgress,
  type JobResult,
  loadBullMQ,
  queueName,
  type RedisConnection,
} from "./protocol.js";
import { pack, unpack } from "./wire.js";

export interface ServeBullmqOptions {
  /** Redis: a `redis://host:port` URL or ioredis options. */
  connection: RedisConnection;
  /** The queue to serve (the executor's `queue`). */
  queue: string;
  /** The workflows this worker runs (the same module the runs were built from). */
  workflows: readonly Workflow<unknown>[];
  /** BullMQ's key prefix; default "bull". */
  prefix?: string;
  /** Nodes this process runs at once. Default 1: steps are usually CPU-bound, run more processes instead. */
  concurrency?: number;
  /** How long a job's lock lasts without renewal (renewed every half of it). Default 30 000 ms. */
  lockDurationMs?: number;
  /** How often stalled jobs (whose worker died) are looked for. Default 30 000 ms. */
  stalledIntervalMs?: number;
  /** How many times a job may stall (its worker died) and still be rerun. Default 1. */
  maxStalledCount?: number;
  /** Reopens storages other than Node folders and warehouses (S3 + Postgres) from their descriptor. */
  reopen?: (descriptor: StorageDescriptor) => Storage | undefined;
  /**
   * How to serve one more workflow, told to a run whose job names a workflow this worker lacks.
   * Default: "pass it in serveBullmq({ workflows }) and restart this worker".
   */
  toServeMore?: string;
}

export interface BullmqWorker {
  /** Resolves once the worker is connected and taking jobs. */
  readonly ready: Promise<void>;
  /** Tells the executors waiting on this process's running jobs that it is dying of `reason`. */
  reportCrash(reason: string): Promise<void>;
  /** Stops taking jobs; waits for running ones unless `force`. */
  close(force?: boolean): Promise<void>;
}

function reopener(reopen: ServeBullmqOptions["reopen"]) {
  return (descriptor: StorageDescriptor): Storage => {
    const custom = reopen?.(descriptor);
    if (custom) return custom;
    if (descriptor.kind === "node") return nodeStorage({ root: descriptor.root });
    if (descriptor.kind === "warehouse") return reopenWarehouse(descriptor);
    throw new AvaError(
      "UNAVAILABLE",
      // the kind only: a descriptor can carry credentials, and this message lands in run records
      `this bullmq worker cannot open ${descriptor.kind} storage; pass reopen to serveBullmq`,
    );
  };
}

export function serveBullmq(options: ServeBullmqOptions): BullmqWorker {
  const what = "serveBullmq";
  const connection = connectionOptions(options?.connection, what);
  const queue = queueName(options.queue, what);
  const prefix = options.prefix ?? "bull";
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new AvaError(
      "INVALID_ARGUMENT",
      `${what}: concurrency must be a positive integer, got ${concurrency}`,
    );
  const runner = nodeRunner(
    workflowsByName(what, options.workflows ?? []),
    reopener(options.reopen),
    options.toServeMore ?? "pass it in serveBullmq({ workflows }) and restart this worker",
  );
  const running = new Map<string, { job: Job; abort: AbortController }>();
  let worker: Worker | undefined;
  let subscriber: Subscriber | undefined;

  const progress = (job: Job, data: JobProgress) => job.updateProgress(data as object);

  const process = async (job: Job<JobData, string>, _token?: string, bullSignal?: AbortSignal) => {
    const { UnrecoverableError } = await loadBullMQ();
    const { task, payload, storage: descriptor, maxValueBytes } = job.data;
    const abort = new AbortController();
    const jobId = job.id!;
    running.set(jobId, { job, abort });
    bullSignal?.addEventListener("abort", () => abort.abort(cancelled()), { once: true });
    try {
      // Cancelled before this worker took it (the cancel message came too early to find it running)? The
      // check runs beside the node rather than before it: a round trip less on every node's path.
      void ((await worker!.client) as unknown as Commands).get(cancelKey(prefix, queue, jobId)).then(
        (v) => v && abort.abort(cancelled()),
        () => {},
      );
      const storage = runner.storage(descriptor);
      const models = runner.models(task.workflowName);
      const { args, input } = (await unpack(payload, storage, models, { consume: false })) as Pick<
        NodeTask,
        "args" | "input"
      >;
      // args decoded here already: hand them to the runner as values that need no further decoding
      const { value, lineage } = await runner.run({ ...task, args, input }, descriptor, abort.signal, {
        log: (line) => void progress(job, { type: "log", line }).catch(() => {}),
      });
      const result: JobResult = {
        value: await pack(value, {
          storage,
          maxValueBytes,
          runId: task.runId,
          what: `run ${task.runId}, node ${task.slug}, result`,
        }),
        lineage,
      };
      return JSON.stringify(result);
    } catch (err) {
      // BullMQ keeps only the message of a failure: the whole error goes first, as progress
      await progress(job, { type: "error", error: toErrorInfo(err) }).catch(() => {});
      if (abort.signal.aborted || isAvaError(err, "RUN_CANCELLED") || isAvaError(err, "TOO_LARGE"))
        throw new UnrecoverableError((err as Error).message);
      throw err;
    } finally {
      running.delete(jobId);
    }
  };

  const ready = (async () => {
    // Parquet's wasm loads before the first job, not inside it: a job's lock must not lapse while it compiles.
    const [{ Worker }] = await Promise.all([loadBullMQ(), loadParquetWasm()]);
    worker = new Worker(queue, process, {
      connection: { ...connection, maxRetriesPerRequest: null },
      prefix,
      concurrency,
      lockDuration: options.lockDurationMs ?? 30_000,
      stalledInterval: options.stalledIntervalMs ?? 30_000,
      maxStalledCount: options.maxStalledCount ?? 1,
    });
    worker.on("error", () => {}); // connection trouble: BullMQ reconnects; jobs report their own errors
    subscriber = ((await worker.client) as unknown as Commands).duplicate();
    subscriber.on("error", () => {});
    subscriber.on("message", (_channel: string, jobId: string) =>
      running.get(jobId)?.abort.abort(cancelled()),
    );
    await subscriber.subscribe(cancelChannel(prefix, queue));
    await worker.waitUntilReady();
  })();

  return {
    ready,
    async reportCrash(reason) {
      await Promise.allSettled(
        [...running.values()].map(({ job }) => progress(job, { type: "crash", reason })),
      );
    },
    async close(force = false) {
      await ready.catch(() => {});
      subscriber?.disconnect();
      await worker?.close(force);
    },
  };
}

/** The few ioredis commands used beside BullMQ's own (its client type hides them). */
interface Subscriber {
  on(event: string, listener: (...args: never[]) => void): void;
  subscribe(channel: string): Promise<unknown>;
  disconnect(): void;
}
interface Commands {
  get(key: string): Promise<string | null>;
  duplicate(): Subscriber;
}

// RunHandle reads a node that ended on RUN_CANCELLED after cancel() as cancelled.
const cancelled = () => new AvaError("RUN_CANCELLED", "the run was cancelled");
