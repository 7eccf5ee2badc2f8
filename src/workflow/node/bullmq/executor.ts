// `bullmqExecutor({ connection, queue })` from avalanche-web/node: the run's own scheduler hands each ready
// node to BullMQ as one job, and worker processes on any machine that reaches Redis and the run's storage run
// it (`avalanche-web worker`, or `serveBullmq`). Not a BullMQ flow: the scheduler already knows readiness,
// skips, cancellation and reruns, and a node's arguments are its upstream values, which exist only once those
// have run. Results come back through QueueEvents; exactly once rests on the catalog, not on BullMQ: a node's
// appends and stream progress commit together, so a job rerun after its worker died writes nothing twice.
import type { Job, Queue, QueueEvents } from "bullmq";
import { AvaError, isAvaError } from "../../../errors.js";
import type { Storage } from "../../../storage/types.js";
import { fromErrorInfo } from "../../errors.js";
import type { Executor } from "../../executor.js";
import type { NodeEvents, NodeOutcome } from "../../invoke.js";
import {
  cancelChannel,
  cancelKey,
  connectionOptions,
  describeConnection,
  type JobData,
  type JobProgress,
  type JobResult,
  jobIdOf,
  loadBullMQ,
  queueName,
  type RedisConnection,
} from "./protocol.js";
import { discard, type Envelope, pack, unpack } from "./wire.js";
import { abortWatch } from "./abort-watch.js";

export interface StepJobOptions {
  /** Attempts of a failing node (its error, not its worker's death: that is `maxStalledCount`). Default 1. */
  attempts?: number;
  /** Wait between attempts: a fixed delay in ms, or BullMQ's `{ type: "exponential", delay }`. Default none. */
  backoff?: number | { type: "fixed" | "exponential"; delay: number };
}

export interface BullmqExecutorOptions extends StepJobOptions {
  /** Redis: a `redis://host:port` URL or ioredis options (`{ host, port, password, tls, ... }`). */
  connection: RedisConnection;
  /** The queue the workers serve (`avalanche-web worker --queue Q`). */
  queue: string;
  /** BullMQ's key prefix; default "bull". */
  prefix?: string;
  /** Nodes queued or running at once, across all workers. Default 64. */
  concurrency?: number;
  /** Per-step attempts and backoff, by node slug; overrides the executor-wide ones. */
  steps?: Record<string, StepJobOptions>;
  /** JSON size past which arguments and results travel by reference through the run's storage. Default 1 MiB. */
  maxValueBytes?: number;
  /** How long Redis may be unreachable before queuing a node fails with UNAVAILABLE. Default 5000 ms. */
  connectTimeoutMs?: number;
}

interface Pending {
  slug: string;
  storage: Storage | undefined;
  payload: Envelope | undefined;
  events: NodeEvents | undefined;
  lastError?: JobProgress & { type: "error" };
  lastCrash?: string;
  /** How many times BullMQ found the node's job stalled (its worker gone) and queued it again. */
  stalls: number;
  resolve(outcome: NodeOutcome): void;
  reject(err: Error): void;
  models: import("../../crossing.js").ModelLookup;
}

/** The BullMQ objects of an executor, made on its first node. */
interface Session {
  queue: Queue;
  events: QueueEvents;
}

export function bullmqExecutor(options: BullmqExecutorOptions): Executor {
  const what = "bullmqExecutor";
  if (typeof options !== "object" || options === null)
    throw new AvaError("INVALID_ARGUMENT", `${what}: pass { connection, queue }`);
  const connection = connectionOptions(options.connection, what);
  const queue = queueName(options.queue, what);
  const prefix = options.prefix ?? "bull";
  const concurrency = options.concurrency ?? 64;
  const maxValueBytes = options.maxValueBytes ?? 1 << 20;
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new AvaError(
      "INVALID_ARGUMENT",
      `${what}: concurrency must be a positive integer, got ${concurrency}`,
    );
  if (!Number.isInteger(maxValueBytes) || maxValueBytes < 1)
    throw new AvaError("INVALID_ARGUMENT", `${what}: maxValueBytes must be a positive integer`);
  checkJobOptions(options, what);
  for (const [slug, step] of Object.entries(options.steps ?? {}))
    checkJobOptions(step, `${what}: steps.${slug}`);
  const where = describeConnection(connection);
  const pending = new Map<string, Pending>();
  let session: Promise<Session> | undefined;
  let closed = false;
  const onRunAbort = abortWatch();

  const unavailable = (message: string, cause?: unknown) =>
    new AvaError("UNAVAILABLE", `${where} (queue ${queue}): ${message}`, { cause });

  const withTimeout = <T>(promise: Promise<T>, doing: string): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(unavailable(`no answer within ${connectTimeoutMs} ms while ${doing}`)),
        connectTimeoutMs,
      );
      promise.then(
        (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        (err) => {
          clearTimeout(timer);
          reject(
            isAvaError(err) ? err : unavailable(`${doing} failed: ${(err as Error)?.message ?? err}`, err),
          );
        },
      );
    });

  /** Settles a node from its job's end. */
  const finish = (jobId: string, settle: (p: Pending) => Promise<void>) => {
    const p = pending.get(jobId);
    if (!p) return;
    pending.delete(jobId);
    // the arguments' file (if they went by reference) is gone before the node is reported done
    discard(p.payload, p.storage)
      .then(() => settle(p))
      .catch((err) => p.reject(err));
  };

  const completed = (jobId: string, returnvalue: unknown) =>
    finish(jobId, async (p) => {
      const result = (typeof returnvalue === "string" ? JSON.parse(returnvalue) : returnvalue) as JobResult;
      const value = await unpack(result.value, p.storage, p.models, { consume: true });
      p.resolve({ value, lineage: result.lineage });
    });

  const failed = (jobId: string, reason: string) =>
    finish(jobId, async (p) => {
      if (p.lastError) throw fromErrorInfo(p.lastError.error);
      if (/stalled more than allowable limit/.test(reason))
        throw new AvaError(
          "WORKER_CRASHED",
          `the worker running node ${p.slug} died${p.lastCrash ? `: ${p.lastCrash}` : ""} (its job stalled ${p.stalls} times, past the workers' maxStalledCount: ` +
            "the worker process was killed, or its event loop was blocked longer than lockDuration)",
        );
      throw new AvaError("RUN_FAILED", `node ${p.slug} failed in a BullMQ worker: ${reason}`);
    });

  /** After Redis came back: nodes whose jobs ended unseen, or vanished (a Redis without persistence). */
  const reconcile = async (s: Session) => {
    for (const [jobId, p] of [...pending]) {
      const job = (await s.queue.getJob(jobId).catch(() => undefined)) as Job | undefined;
      if (!pending.has(jobId)) continue;
      if (!job) {
        pending.delete(jobId);
        void discard(p.payload, p.storage);
        p.reject(
          unavailable(`node ${p.slug}'s job is gone from Redis (was Redis restarted without persistence?)`),
        );
        continue;
      }
      const state = await job.getState().catch(() => "unknown");
      if (state === "completed") completed(jobId, job.returnvalue);
      else if (state === "failed") failed(jobId, job.failedReason);
    }
  };

  const start = async (): Promise<Session> => {
    const { Queue, QueueEvents } = await loadBullMQ();
    // Commands must fail (not wait forever) while Redis is away: the run then fails with a typed error.
    const queueObj = new Queue(queue, {
      connection: { ...connection, maxRetriesPerRequest: 1, enableOfflineQueue: false },
      prefix,
    });
    queueObj.on("error", () => {}); // reported through the commands that fail
    // QueueEvents reads from "$" once its loop is going, after it says it is ready: a node finishing in
    // between would never be heard of. It starts instead from the last event there was before any job.
    try {
      await withTimeout(queueObj.waitUntilReady(), "connecting");
    } catch (err) {
      void queueObj.close().catch(() => {}); // no client left reconnecting behind a failed start
      throw err;
    }
    const last = (await ((await queueObj.client) as unknown as Xrevrange).xrevrange(
      `${prefix}:${queue}:events`,
      "+",
      "-",
      "COUNT",
      1,
    )) as [string, unknown][];
    const events = new QueueEvents(queue, {
      connection: { ...connection },
      prefix,
      lastEventId: last[0]?.[0] ?? "0-0",
    });
    let lost = false;
    events.on("error", (err) => {
      lost = true;
      // Nodes in flight cannot report back while Redis is away: they fail now, with the reason.
      for (const [jobId, p] of [...pending]) {
        pending.delete(jobId);
        p.reject(unavailable(`lost the connection while node ${p.slug} ran: ${err.message}`, err));
      }
    });
    events.on("progress", ({ jobId, data }) => onProgress(jobId, data as JobProgress));
    events.on("stalled", ({ jobId }) => {
      const p = pending.get(jobId);
      if (p) p.stalls++;
    });
    events.on("completed", ({ jobId, returnvalue }) => completed(jobId, returnvalue));
    events.on("failed", ({ jobId, failedReason }) => failed(jobId, failedReason));
    const s = { queue: queueObj, events };
    void events.client.then((client) =>
      client.on("ready", () => {
        if (lost) void reconcile(s);
        lost = false;
      }),
    );
    try {
      await withTimeout(events.waitUntilReady(), "connecting");
    } catch (err) {
      void Promise.allSettled([events.close(), queueObj.close()]);
      throw err;
    }
    return s;
  };

  const onProgress = (jobId: string, data: JobProgress) => {
    const p = pending.get(jobId);
    if (!p || typeof data !== "object" || data === null) return;
    if (data.type === "log") p.events?.log?.(data.line);
    else if (data.type === "error") p.lastError = data;
    else if (data.type === "crash") p.lastCrash = data.reason;
  };

  const sessionNow = (): Promise<Session> => {
    session ??= start().catch((err) => {
      session = undefined; // the next node tries again
      throw err;
    });
    return session;
  };

  const cancel = async (s: Session, jobId: string) => {
    const client = (await s.queue.client) as unknown as {
      set(key: string, value: string, ex: "EX", seconds: number): Promise<unknown>;
      publish(channel: string, message: string): Promise<unknown>;
    };
    await client.set(cancelKey(prefix, queue, jobId), "1", "EX", 3600);
    await client.publish(cancelChannel(prefix, queue), jobId);
    // a job no worker has taken is simply removed; a running one is locked, and its worker aborts it
    const removed = await s.queue.remove(jobId).catch(() => 0);
    if (removed)
      finish(jobId, async () => {
        throw new AvaError("RUN_CANCELLED", "the run was cancelled");
      });
  };

  return {
    kind: "bullmq",
    concurrency,
    async runNode({ workflow, storage }, task, signal, _movable, events) {
      workflow.assertRunnable();
      if (closed) throw new AvaError("UNAVAILABLE", `${what}: this executor is closed`);
      const s = await sessionNow();
      const jobId = jobIdOf(task.runId, task.slug);
      const { args, input, ...rest } = task;
      const payload = await pack(
        { args, input },
        {
          storage,
          maxValueBytes,
          runId: task.runId,
          what: `run ${task.runId}, node ${task.slug}, arguments`,
        },
      );
      const data: JobData = { task: rest, payload, storage: storage?.descriptor, maxValueBytes };
      const step = { ...pick(options), ...pick(options.steps?.[task.slug] ?? {}) };
      const outcome = new Promise<NodeOutcome>((resolve, reject) => {
        pending.set(jobId, {
          slug: task.slug,
          stalls: 0,
          storage,
          payload,
          events,
          models: workflow.tableModels,
          resolve,
          reject,
        });
      });
      const unwatch = onRunAbort(signal, () => void cancel(s, jobId).catch(() => {}));
      try {
        await withTimeout(
          s.queue.add(task.slug, data, {
            jobId,
            attempts: step.attempts ?? 1,
            ...(step.backoff !== undefined ? { backoff: step.backoff } : {}),
            removeOnComplete: { age: 300 },
            removeOnFail: { age: 3600 },
          }),
          `queuing node ${task.slug}`,
        );
        return await outcome;
      } catch (err) {
        if (pending.delete(jobId)) void discard(payload, storage);
        throw err;
      } finally {
        unwatch();
      }
    },
    async close() {
      closed = true;
      const s = await session?.catch(() => undefined);
      session = undefined;
      for (const p of pending.values())
        p.reject(new AvaError("UNAVAILABLE", `${what}: the executor was closed`));
      pending.clear();
      await Promise.allSettled([s?.events.close(), s?.queue.close()]);
    },
  };
}

interface Xrevrange {
  xrevrange(key: string, end: "+", start: "-", count: "COUNT", n: number): Promise<unknown>;
}

function pick({ attempts, backoff }: StepJobOptions): StepJobOptions {
  return { ...(attempts !== undefined ? { attempts } : {}), ...(backoff !== undefined ? { backoff } : {}) };
}

function checkJobOptions({ attempts, backoff }: StepJobOptions, what: string): void {
  if (attempts !== undefined && (!Number.isInteger(attempts) || attempts < 1))
    throw new AvaError("INVALID_ARGUMENT", `${what}: attempts must be a positive integer, got ${attempts}`);
  const delay = typeof backoff === "object" && backoff !== null ? backoff.delay : backoff;
  if (backoff !== undefined && !(typeof delay === "number" && delay >= 0))
    throw new AvaError("INVALID_ARGUMENT", `${what}: backoff must be a delay in ms or { type, delay }`);
}
