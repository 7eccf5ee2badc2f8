// The Chromium live-stream bench page (bench/live-browser.ts runs it): for each server (`?discard=URL`,
// `?ingest=URL`), the floor — each batch file POSTed with plain fetch, one at a time and two at a time (as the
// stream's default maxInFlight) — then createLiveStream with a memory outbox (and with 4 in flight), with a
// browserStorage outbox (its batch files written by the page's writer Worker, and with
// createWritable as where no Worker may run), on the page's main thread as an app calls it; then the same
// with null-codec batches (no compression) against their own floor.
import { browserStorage, memoryStorage } from "../../src/index.js";
import { percentile } from "../lib.js";
import {
  batchFiles,
  DISCARD_ROUNDS,
  fetchTimed,
  INGEST_ROUNDS,
  LIVE_RUNS,
  liveRounds,
  streamTimed,
  type Timed,
} from "../live-data.js";
import { report } from "./report.js";

async function run(): Promise<Record<string, number[]>> {
  const params = new URLSearchParams(location.search);
  const out: Record<string, number[]> = {};
  const add = (key: string, value: number) => {
    out[key] = [...(out[key] ?? []), value];
  };
  const keep = (key: string, m: Timed) => {
    add(key, m.ms);
    add(`${key}.p50`, percentile(m.latencies, 50));
    add(`${key}.p99`, percentile(m.latencies, 99));
    if (m.stored) add(`${key}.stored50`, percentile(m.stored, 50));
  };
  // The OPFS outbox as it was before page writes went to a writer Worker: with Worker hidden, the file
  // store falls back to createWritable (what it does where a CSP forbids the Worker).
  const withoutWorker = async <T>(run: () => Promise<T>): Promise<T> => {
    const saved = globalThis.Worker;
    (globalThis as { Worker?: unknown }).Worker = undefined;
    try {
      return await run();
    } finally {
      globalThis.Worker = saved;
    }
  };
  for (const [mode, rounds] of [
    ["discard", DISCARD_ROUNDS],
    ["ingest", INGEST_ROUNDS],
  ] as const) {
    const url = params.get(mode);
    if (!url) throw new Error(`the page wants ?${mode}=URL`);
    const data = liveRounds(rounds);
    const files = await batchFiles(data);
    const nullFiles = await batchFiles(data, "null");
    for (let i = 0; i < LIVE_RUNS; i++) {
      keep(`${mode}.floor`, await fetchTimed(url, files));
      keep(`${mode}.floor2`, await fetchTimed(url, files, 2));
      keep(`${mode}.memory`, await streamTimed(url, memoryStorage(), data));
      keep(`${mode}.memory4`, await streamTimed(url, memoryStorage(), data, "snappy", 4));
      keep(`${mode}.opfs`, await streamTimed(url, browserStorage({ name: `bench-live-${mode}-${i}` }), data));
      const plain = browserStorage({ name: `bench-live-${mode}-cw-${i}` });
      keep(`${mode}.opfsWritable`, await withoutWorker(() => streamTimed(url, plain, data)));
      keep(`${mode}.nullFloor`, await fetchTimed(url, nullFiles));
      keep(`${mode}.nullMemory`, await streamTimed(url, memoryStorage(), data, "null"));
    }
  }
  return out;
}

// Not awaited at the top level: the page's load event (which the runner waits for) must not wait for the run.
void report(run);
