// The live-streaming benchmarks' points and timed cases, one definition for Node (bench/live.ts) and
// Chromium (bench/browser/live-main.ts): 50 channels, one round = one 250,000-point batch
// (nominal-streaming's request size), made before any timing.
import { type AvroCodec, createLiveStream, type LiveBatch } from "../src/avro.js";
import { fetchBody } from "../src/avro/live/transport.js";
import type { Storage } from "../src/storage/types.js";

export const CHANNELS = 50;
export const PER_ROUND = 5_000; // points per channel in a round
export const BATCH = CHANNELS * PER_ROUND;
/** Rounds streamed to the server that only reads the body, and to the one that appends to a table. */
export const DISCARD_ROUNDS = 20;
export const INGEST_ROUNDS = 8;
/** Runs of each case (medians are reported). */
export const LIVE_RUNS = 3;

/** Issue 13's targets: points/s sustained into the ingest endpoint, and the outbox's cost over the floor. */
export const TARGET_NODE = 5e6;
export const TARGET_CHROMIUM = 2e6;
export const TARGET_OVERHEAD = 1.5;

/** "2.10M points/s = 0.42× the ≥ 5M target (not met)": a rate beside its target. */
export function versusTarget(points: number, ms: number, target: number): string {
  const perSecond = (points / ms) * 1000;
  const met = perSecond >= target ? "met" : "not met";
  return `${(perSecond / target).toFixed(2)}× the ≥ ${target / 1e6}M points/s target (${met})`;
}

/** "1.20× the floor, target ≤ 1.5× (met)". */
export function versusFloor(ms: number, floorMs: number): string {
  const r = ms / floorMs;
  return `${r.toFixed(2)}× the floor, target ≤ ${TARGET_OVERHEAD}× (${r <= TARGET_OVERHEAD ? "met" : "not met"})`;
}

export interface Round {
  ts: BigInt64Array;
  values: Float64Array[];
}

/** Timestamps 1 ms apart and each channel a random walk: telemetry-like, not compressible to nothing. */
export function liveRounds(n: number): Round[] {
  const level = new Float64Array(CHANNELS);
  return Array.from({ length: n }, (_, round) => ({
    ts: BigInt64Array.from({ length: PER_ROUND }, (_, i) => BigInt(round * PER_ROUND + i) * 1_000_000n),
    values: Array.from({ length: CHANNELS }, (_, c) =>
      Float64Array.from({ length: PER_ROUND }, () => (level[c]! += Math.random() - 0.5)),
    ),
  }));
}

export interface Timed {
  ms: number;
  /** Each batch's time from its first enqueue (or its POST) to its acknowledgement. */
  latencies: number[];
  /** A live stream's: each batch's time from its first enqueue to durable in the outbox ("stored"). */
  stored?: number[];
}

/** Streams `data` through createLiveStream into `url`, with `outbox`, each batch in `codec` (default maxInFlight unless given). */
export async function streamTimed(
  url: string,
  outbox: Storage,
  data: Round[],
  codec: AvroCodec = "snappy",
  maxInFlight?: number,
): Promise<Timed> {
  const live = createLiveStream({
    url,
    outbox,
    name: "bench",
    codec,
    maxBatchPoints: BATCH,
    maxDelayMs: 10_000,
    ...(maxInFlight !== undefined && { maxInFlight }),
  });
  const enqueued: number[] = [];
  const latencies: number[] = [];
  const stored: number[] = [];
  live.addEventListener("sent", () => latencies.push(performance.now() - enqueued[latencies.length]!));
  live.addEventListener("stored", () => stored.push(performance.now() - enqueued[stored.length]!));
  const t0 = performance.now();
  for (const { ts, values } of data) {
    await live.writable();
    enqueued.push(performance.now());
    for (let c = 0; c < CHANNELS; c++) live.enqueueBatch(`ch${c}`, ts, values[c]!);
  }
  await live.close();
  return { ms: performance.now() - t0, latencies, stored };
}

/** The same batch files the stream sends (captured through a transport function). */
export async function batchFiles(data: Round[], codec: AvroCodec = "snappy"): Promise<Uint8Array[]> {
  const files: Uint8Array[] = [];
  const live = createLiveStream({
    transport: async (b: LiveBatch) => void files.push(b.bytes),
    codec,
    maxBatchPoints: BATCH,
    maxDelayMs: 10_000,
  });
  for (const { ts, values } of data) {
    await live.writable();
    for (let c = 0; c < CHANNELS; c++) live.enqueueBatch(`ch${c}`, ts, values[c]!);
  }
  await live.close();
  return files;
}

/**
 * The floor: each file POSTed with plain fetch, one after another (or `inFlight` at a time), in the body form the library's transport
 * uses (a Blob in a browser: an ArrayBuffer body under Playwright's DevTools connection is 10–20× slower,
 * which made the Chromium floor ~0.17M points/s).
 */
export async function fetchTimed(url: string, files: readonly Uint8Array[], inFlight = 1): Promise<Timed> {
  const latencies: number[] = [];
  const t0 = performance.now();
  let next = 0;
  // `inFlight` posters take the files in turn: with 2, the floor of a stream's default maxInFlight.
  const poster = async () => {
    while (next < files.length) {
      const body = files[next++]!;
      const t = performance.now();
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/avro", "idempotency-key": crypto.randomUUID() },
        body: fetchBody(body),
      });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`floor POST answered ${res.status}`);
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, poster));
  return { ms: performance.now() - t0, latencies };
}
