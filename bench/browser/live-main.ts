// The Chromium live-stream bench page (bench/live-browser.ts runs it): for each server (`?discard=URL`,
// `?ingest=URL`), the floor — each batch file POSTed with plain fetch — then createLiveStream with a memory
// outbox and with a browserStorage outbox, on the page's main thread as an app calls it.
import { createLiveStream, type LiveBatch } from "../../src/avro.js";
import { browserStorage, memoryStorage, type Storage } from "../../src/index.js";
import {
  BATCH,
  CHANNELS,
  DISCARD_ROUNDS,
  INGEST_ROUNDS,
  LIVE_RUNS,
  liveRounds,
  type Round,
} from "../live-data.js";
import { report } from "./report.js";

interface Measured {
  ms: number;
  latencies: number[];
}

function percentile(xs: readonly number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function streamOnce(url: string, outbox: Storage, data: Round[]): Promise<Measured> {
  const live = createLiveStream({ url, outbox, name: "bench", maxBatchPoints: BATCH, maxDelayMs: 10_000 });
  const enqueued: number[] = [];
  const latencies: number[] = [];
  live.addEventListener("sent", () => latencies.push(performance.now() - enqueued[latencies.length]!));
  const t0 = performance.now();
  for (const { ts, values } of data) {
    await live.writable();
    enqueued.push(performance.now());
    for (let c = 0; c < CHANNELS; c++) live.enqueueBatch(`ch${c}`, ts, values[c]!);
  }
  await live.close();
  return { ms: performance.now() - t0, latencies };
}

/** The batch files the stream sends, captured through a transport function. */
async function batchFiles(data: Round[]): Promise<Uint8Array[]> {
  const files: Uint8Array[] = [];
  const live = createLiveStream({
    transport: async (b: LiveBatch) => void files.push(b.bytes),
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

async function fetchOnce(url: string, files: readonly Uint8Array[]): Promise<Measured> {
  const latencies: number[] = [];
  const t0 = performance.now();
  for (const body of files) {
    const t = performance.now();
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/avro", "idempotency-key": crypto.randomUUID() },
      body: body as Uint8Array<ArrayBuffer>,
    });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`floor POST answered ${res.status}`);
    latencies.push(performance.now() - t);
  }
  return { ms: performance.now() - t0, latencies };
}

async function run(): Promise<Record<string, number[]>> {
  const params = new URLSearchParams(location.search);
  const out: Record<string, number[]> = {};
  const add = (key: string, value: number) => {
    out[key] = [...(out[key] ?? []), value];
  };
  const keep = (key: string, m: Measured) => {
    add(key, m.ms);
    add(`${key}.p50`, percentile(m.latencies, 50));
    add(`${key}.p99`, percentile(m.latencies, 99));
  };
  for (const [mode, rounds] of [
    ["discard", DISCARD_ROUNDS],
    ["ingest", INGEST_ROUNDS],
  ] as const) {
    const url = params.get(mode);
    if (!url) throw new Error(`the page wants ?${mode}=URL`);
    const data = liveRounds(rounds);
    const files = await batchFiles(data);
    for (let i = 0; i < LIVE_RUNS; i++) {
      keep(`${mode}.floor`, await fetchOnce(url, files));
      keep(`${mode}.memory`, await streamOnce(url, memoryStorage(), data));
      keep(`${mode}.opfs`, await streamOnce(url, browserStorage({ name: `bench-live-${mode}-${i}` }), data));
    }
  }
  return out;
}

// Not awaited at the top level: the page's load event (which the runner waits for) must not wait for the run.
void report(run);
