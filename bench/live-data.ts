// The live-streaming benchmarks' points, one definition for Node (bench/live.ts) and Chromium
// (bench/browser/live-main.ts): 50 channels, one round = one 250,000-point batch (nominal-streaming's
// request size), made before any timing.
export const CHANNELS = 50;
export const PER_ROUND = 5_000; // points per channel in a round
export const BATCH = CHANNELS * PER_ROUND;
/** Rounds streamed to the server that only reads the body, and to the one that appends to a table. */
export const DISCARD_ROUNDS = 20;
export const INGEST_ROUNDS = 8;
/** Runs of each case (medians are reported). */
export const LIVE_RUNS = 3;

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
