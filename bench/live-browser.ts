// Live streaming from a page in headless Chromium (`npm run bench -- live`, after the Node cases): the page
// (bench/browser/live-main.ts) streams to the same servers as the Node cases (bench/live-server.ts, in a
// process of their own) and times the floor — plain fetch of the very same batch files, one at a time —
// beside createLiveStream with a memory outbox and with a durable browserStorage outbox (OPFS + IndexedDB).
import { runBenchPage } from "./browser-page.js";
import { median, printTable, type Row, rate, ratio } from "./lib.js";
import {
  BATCH,
  CHANNELS,
  DISCARD_ROUNDS,
  INGEST_ROUNDS,
  LIVE_RUNS,
  TARGET_CHROMIUM,
  versusFloor,
  versusTarget,
} from "./live-data.js";
import { type Mode, removeTemps, startServer } from "./live.js";

export async function benchLiveBrowser(): Promise<void> {
  const discard = await startServer("discard");
  const ingest = await startServer("ingest");
  let t: Record<string, number[]>;
  try {
    const query = new URLSearchParams({ discard: discard.url, ingest: ingest.url });
    // A profile on disk, as a user's: OPFS off the record is memory behind messages to the browser process.
    // AVA_BENCH_PROFILE=incognito runs Playwright's default context instead (a private window's case).
    const profile = process.env.AVA_BENCH_PROFILE === "incognito" ? "incognito" : "disk";
    t = await runBenchPage(`live.html?${query}`, { profile });
  } finally {
    await discard.stop();
    await ingest.stop();
    await removeTemps();
  }
  const rows = (mode: Mode, rounds: number): Row[] => {
    const points = rounds * BATCH;
    const m = (k: string) => median(t[`${mode}.${k}`]!);
    const target = (key: string) =>
      mode === "ingest" ? `${versusTarget(points, m(key), TARGET_CHROMIUM)}; ` : "";
    const stored = (key: string) =>
      t[`${mode}.${key}.stored50`] ? `, p50 ${m(`${key}.stored50`).toFixed(0)} ms enqueue-to-durable` : "";
    const row = (name: string, key: string, floor = "floor"): Row => ({
      case: `${mode}: ${name}`,
      median_ms: m(key),
      rate: rate(points, m(key), "points"),
      ratio: ratio(m(key), m(floor)),
      note: `${target(key)}${key === floor ? "" : `${versusFloor(m(key), m(floor))}; `}p50 ${m(`${key}.p50`).toFixed(0)} ms, p99 ${m(`${key}.p99`).toFixed(0)} ms enqueue-to-ack${stored(key)}`,
    });
    return [
      row("plain fetch of the same snappy files (floor)", "floor"),
      row("plain fetch of the same snappy files, 2 in flight", "floor2"),
      row("createLiveStream, memory outbox", "memory"),
      row("createLiveStream, memory outbox, maxInFlight 4", "memory4"),
      row("createLiveStream, browserStorage outbox (OPFS + IndexedDB)", "opfs"),
      row("the same, batch files by createWritable (no writer Worker)", "opfsWritable"),
      row("plain fetch of the same null-codec files (floor)", "nullFloor", "nullFloor"),
      row('createLiveStream codec "null", memory outbox', "nullMemory", "nullFloor"),
    ];
  };
  printTable(
    `Live streaming from headless Chromium's main thread on loopback: ${CHANNELS} channels, ${BATCH.toLocaleString("en")}-point batches (medians of ${LIVE_RUNS}; ratio = time / the floor's; targets: ≥ ${TARGET_CHROMIUM / 1e6}M points/s into ingest, ≤ 1.5× the floor)`,
    [...rows("discard", DISCARD_ROUNDS), ...rows("ingest", INGEST_ROUNDS)],
  );
}
