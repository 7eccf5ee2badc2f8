// What the executor and the worker processes agree on: a job's data and return value, the progress messages
// a running job sends back, the cancel channel, and how a Redis connection is named. BullMQ itself is
// optional: it is imported when first used, and its absence is a clear UNAVAILABLE error.
import { AvaError } from "../../../errors.js";
import type { ErrorInfo } from "../../../storage/catalog/model.js";
import type { StorageDescriptor } from "../../../storage/types.js";
import type { NodeTask } from "../../invoke.js";
import type { LogLine } from "../../logger.js";
import type { Envelope } from "./wire.js";

/** A job: one node of one run. Its `task` has `args` and `input` taken out, into the `payload` envelope. */
export interface JobData {
  task: Omit<NodeTask, "args" | "input">;
  /** `{ args, input }` of the task, encoded. */
  payload: Envelope;
  storage: StorageDescriptor | undefined;
  maxValueBytes: number;
}

/** What a finished job returns: the node's value, encoded, and the lineage it carries. */
export interface JobResult {
  value: Envelope;
  lineage: Record<string, string>;
}

/** What a running job reports through `job.updateProgress` (BullMQ carries it to QueueEvents in order). */
export type JobProgress =
  | { type: "log"; line: LogLine }
  /** The attempt failed with this error (sent before the failure, which BullMQ reports by message only). */
  | { type: "error"; error: ErrorInfo }
  /** The worker process is dying of an uncaught error while it runs this job. */
  | { type: "crash"; reason: string };

/** Redis connection options as BullMQ takes them (ioredis's), or a `redis://` / `rediss://` URL. */
export type RedisConnection =
  | string
  | {
      host?: string;
      port?: number;
      username?: string;
      password?: string;
      db?: number;
      tls?: object;
      [option: string]: unknown;
    };

export interface ConnectionOptions {
  host: string;
  port: number;
  [option: string]: unknown;
}

/** A connection option as ioredis options, refusing what is not one. */
export function connectionOptions(connection: unknown, what: string): ConnectionOptions {
  if (typeof connection === "string") {
    let url: URL;
    try {
      url = new URL(connection);
    } catch {
      throw new AvaError(
        "INVALID_ARGUMENT",
        `${what}: connection ${JSON.stringify(connection)} is not a redis:// URL`,
      );
    }
    if (url.protocol !== "redis:" && url.protocol !== "rediss:")
      throw new AvaError(
        "INVALID_ARGUMENT",
        `${what}: connection ${connection} is not a redis:// or rediss:// URL`,
      );
    const db = url.pathname.replace(/^\//, "");
    return {
      host: url.hostname || "127.0.0.1",
      port: url.port ? Number(url.port) : 6379,
      ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
      ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
      ...(db ? { db: Number(db) } : {}),
      ...(url.protocol === "rediss:" ? { tls: {} } : {}),
    };
  }
  if (typeof connection !== "object" || connection === null || Array.isArray(connection))
    throw new AvaError(
      "INVALID_ARGUMENT",
      `${what}: connection must be a redis:// URL or { host, port, ... }, got ${connection === null ? "null" : typeof connection}`,
    );
  const c = connection as Record<string, unknown>;
  const port = c.port ?? 6379;
  if (typeof port !== "number" || !Number.isInteger(port) || port < 1 || port > 65535)
    throw new AvaError(
      "INVALID_ARGUMENT",
      `${what}: connection.port must be a port number, got ${String(port)}`,
    );
  if (c.host !== undefined && typeof c.host !== "string")
    throw new AvaError("INVALID_ARGUMENT", `${what}: connection.host must be a string`);
  return { ...c, host: (c.host as string | undefined) ?? "127.0.0.1", port };
}

export const describeConnection = (c: ConnectionOptions) => `redis at ${c.host}:${c.port}`;

/** The queue name, refused when Redis keys would not hold it. */
export function queueName(queue: unknown, what: string): string {
  if (typeof queue !== "string" || !/^[A-Za-z0-9_.-]{1,128}$/.test(queue))
    throw new AvaError(
      "INVALID_ARGUMENT",
      `${what}: queue must be a name of 1-128 letters, digits, _ . or -, got ${JSON.stringify(queue)}`,
    );
  return queue;
}

/** The pub/sub channel on which cancellations reach the workers of a queue (BullMQ has none across processes). */
export const cancelChannel = (prefix: string, queue: string) => `${prefix}:${queue}:ava-cancel`;
/** Set when a job is cancelled, so a worker that takes it later does not start it. */
export const cancelKey = (prefix: string, queue: string, jobId: string) =>
  `${prefix}:${queue}:ava-cancelled:${jobId}`;

/** A job id for a node of a run: stable, so adding it twice adds it once; no `:` (BullMQ's key separator). */
export const jobIdOf = (runId: string, slug: string) =>
  `${encodeURIComponent(runId)}.${encodeURIComponent(slug)}`.replace(/[:%]/g, "~");

export type BullMQ = typeof import("bullmq");

let loaded: Promise<BullMQ> | undefined;

/** BullMQ, imported on first use: an optional peer dependency of avalanche-web. */
export function loadBullMQ(): Promise<BullMQ> {
  loaded ??= import("bullmq").catch((cause: unknown) => {
    loaded = undefined;
    throw new AvaError(
      "UNAVAILABLE",
      "bullmqExecutor and the bullmq worker need the bullmq package: npm install bullmq (an optional peer dependency of avalanche-web)",
      { cause },
    );
  });
  return loaded;
}
