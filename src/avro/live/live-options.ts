// The numeric and storage options of createLiveStream, checked at once with their defaults filled in: a
// wrong one is INVALID_ARGUMENT naming the option, before anything is sent or stored.
import { AvaError, describeValue } from "../../errors.js";
import { type AvroCodec, checkSnappyMode } from "../codecs.js";
import type { SnappyMode } from "../snappy.js";
import type { TimestampUnit } from "../values.js";
import type { LiveStreamOptions } from "./live-stream.js";

export interface CheckedLiveOptions {
  maxBatchPoints: number;
  maxDelayMs: number;
  backoffMs: number;
  maxBackoffMs: number;
  maxBufferedBatches: number;
  maxInFlight: number;
  leaseMs: number;
  codec?: AvroCodec;
  snappy?: SnappyMode;
  timestampUnit?: TimestampUnit;
}

/**
 * Batches posted before the first is answered. Two overlap the sender's encoding and sending with the
 * server's append of the previous batch (one in flight capped the stream at the server's rate minus a round
 * trip); more add little on a two-core sender and server, and each holds a batch in the server's memory.
 */
const DEFAULT_IN_FLIGHT = 2;

function positive(name: string, value: unknown, fallback: number, integer = false): number {
  if (value === undefined) return fallback;
  if (
    typeof value !== "number" ||
    !(value > 0) ||
    !Number.isFinite(value) ||
    (integer && !Number.isInteger(value))
  )
    throw new AvaError(
      "INVALID_ARGUMENT",
      `createLiveStream: ${name} must be a positive ${integer ? "integer" : "number"}, got ${describeValue(value)}`,
    );
  return value;
}

export function checkLiveOptions(options: LiveStreamOptions): CheckedLiveOptions {
  if (typeof options !== "object" || options === null)
    throw new AvaError(
      "INVALID_ARGUMENT",
      `createLiveStream needs an options object, got ${describeValue(options)}`,
    );
  const { outbox } = options;
  if (
    outbox !== undefined &&
    (typeof outbox !== "object" ||
      outbox === null ||
      typeof outbox.files?.write !== "function" ||
      typeof outbox.catalog?.commit !== "function" ||
      typeof outbox.descriptor?.kind !== "string")
  )
    throw new AvaError(
      "INVALID_ARGUMENT",
      `createLiveStream: outbox must be an avalanche storage (browserStorage, nodeStorage, memoryStorage), got ${describeValue(outbox)}`,
    );
  positive("maxOutboxBytes", options.maxOutboxBytes, 1, true);
  const backoffMs = positive("backoffMs", options.backoffMs, 100);
  return {
    maxBatchPoints: positive("maxBatchPoints", options.maxBatchPoints, 250_000, true),
    maxDelayMs: positive("maxDelayMs", options.maxDelayMs, 100),
    backoffMs,
    maxBackoffMs: Math.max(backoffMs, positive("maxBackoffMs", options.maxBackoffMs, 30_000)),
    maxBufferedBatches: positive("maxBufferedBatches", options.maxBufferedBatches, 16, true),
    maxInFlight: positive("maxInFlight", options.maxInFlight, DEFAULT_IN_FLIGHT, true),
    leaseMs: positive("leaseMs", options.leaseMs, 10_000),
    ...(options.codec !== undefined && { codec: options.codec }),
    ...(options.snappy !== undefined && { snappy: checkSnappyMode(options.snappy, "createLiveStream") }),
    ...(options.timestampUnit !== undefined && { timestampUnit: options.timestampUnit }),
  };
}
