// Live streaming on loopback (`npm run bench -- live`), Node. The server runs in a process of its own
// (bench/live-server.ts): `ingest` appends each batch to a table through ingestHandler; `discard` only reads
// the body. Cases, each against the floor of POSTing the very same batch files with plain `fetch`, one at a
// time as the stream sends them:
// In Node the stream posts through node:http (src/avro/live/node-http-post.ts), so each case is also set
// beside a second floor: the same files POSTed with node:http, one at a time.
// - sustained streaming: points/s from the first enqueue to the last acknowledgement, p50/p99 of a batch's
//   enqueue-to-ack latency, and the sending process's CPU per million points; the stream with its default
//   memory outbox and with a durable nodeStorage outbox (every batch written and committed before it is sent);
// - the memory outbox with one batch in flight (maxInFlight 1) beside the default, which posts the next
//   batch while the server still appends the previous one (the floor posts one at a time);
// - outbox drain after an outage: batches stored while nothing listens, then the server comes up: how fast
//   the outbox empties.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AvroCodec, createLiveStream, createWriter, memorySink } from "../src/avro.js";
import { nodeHttpPost } from "../src/avro/live/node-http-post.js";
import { memoryStorage, nodeStorage, type Storage } from "../src/node.js";
import {
  BATCH,
  batchFiles,
  CHANNELS,
  DISCARD_ROUNDS,
  fetchTimed,
  INGEST_ROUNDS,
  LIVE_RUNS as RUNS,
  liveRounds,
  type Round,
  streamTimed,
  TARGET_NODE,
  type Timed,
  versusFloor,
  versusTarget,
} from "./live-data.js";
import { ingestAlone } from "./live-ingest.js";
import { median, percentile, printTable, type Row, rate, ratio } from "./lib.js";

export type Mode = "ingest" | "discard";

/**
 * Batches streamed into the ingest server in the sustained cases (AVA_BENCH_LIVE_INGEST_ROUNDS, default
 * INGEST_ROUNDS = 8): 2M points is mostly the JIT's warm-up of a fresh sender and server; 40 (10M points)
 * shows the steady state the "sustained" asks about, at five times the bench's time.
 */
const SUSTAINED_INGEST_ROUNDS = Number(process.env.AVA_BENCH_LIVE_INGEST_ROUNDS ?? INGEST_ROUNDS);

export interface Server {
  url: string;
  /** The server process's CPU time so far, ms. */
  cpuMs(): Promise<number>;
  stop(): Promise<void>;
}

const temps: string[] = [];
async function temp(tag: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `ava-bench-live-${tag}-`));
  temps.push(dir);
  return dir;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

/** A process started by the spawner (bench/spawner.ts): its output, its exit, and how to kill it. */
interface Spawned {
  onOut(listener: (text: string) => void): void;
  exited: Promise<number | null>;
  kill(): void;
}

let spawner: ReturnType<typeof startSpawner> | undefined;

/** The one process this one forks: every server is spawned by it, never by this (timed) process. */
function startSpawner() {
  const child = spawn(process.execPath, ["--import", "tsx", join(import.meta.dirname, "spawner.ts")], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  // Nothing of the spawner keeps this process alive but a server it runs for us (its output is awaited).
  const out = child.stdout as unknown as { ref(): void; unref(): void };
  child.unref();
  out.unref();
  (child.stdin as unknown as { unref(): void }).unref();
  const listeners = new Map<number, (msg: { out?: string; exit?: number | null }) => void>();
  let next = 0;
  let pending = "";
  child.stdout!.on("data", (d) => {
    pending += d;
    for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
      const msg = JSON.parse(pending.slice(0, nl)) as { ref: number; out?: string; exit?: number | null };
      pending = pending.slice(nl + 1);
      listeners.get(msg.ref)?.(msg);
    }
  });
  return (args: string[]): Spawned => {
    const ref = next++;
    const outs: ((text: string) => void)[] = [];
    let exit: (code: number | null) => void = () => {};
    const exited = new Promise<number | null>((r) => {
      exit = r;
    });
    listeners.set(ref, (msg) => {
      if (msg.out !== undefined) for (const o of outs) o(msg.out);
      if ("exit" in msg) {
        listeners.delete(ref);
        if (listeners.size === 0) out.unref();
        exit(msg.exit ?? null);
      }
    });
    out.ref();
    child.stdin!.write(`${JSON.stringify({ ref, args })}\n`);
    return {
      onOut: (listener) => outs.push(listener),
      exited,
      kill: () => child.stdin!.write(`${JSON.stringify({ ref, kill: true })}\n`),
    };
  };
}

export async function startServer(mode: Mode, port = 0): Promise<Server> {
  spawner ??= startSpawner();
  const child = spawner([
    // AVA_BENCH_SERVER_PROFILE=DIR: each server process writes a CPU profile there when it stops.
    ...(process.env.AVA_BENCH_SERVER_PROFILE
      ? ["--cpu-prof", `--cpu-prof-dir=${process.env.AVA_BENCH_SERVER_PROFILE}`]
      : []),
    "--import",
    "tsx",
    join(import.meta.dirname, "live-server.ts"),
    mode,
    String(port),
    await temp("server"),
  ]);
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.onOut((d) => {
      out += d;
      const m = /listening (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    void child.exited.then((code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return {
    url,
    cpuMs: async () => ((await (await fetch(`${url}/cpu`)).json()) as { ms: number }).ms,
    stop: async () => {
      child.kill();
      await child.exited;
    },
  };
}

interface Measured extends Timed {
  cpuMs: number;
}

/** `run`, with the CPU time this process spent on it. */
async function withCpu(run: () => Promise<Timed>): Promise<Measured> {
  const cpu = process.cpuUsage();
  const timed = await run();
  const used = process.cpuUsage(cpu);
  return { ...timed, cpuMs: (used.user + used.system) / 1000 };
}

const streamOnce = (
  url: string,
  outbox: Storage,
  data: Round[],
  codec: AvroCodec = "snappy",
  maxInFlight?: number,
) => withCpu(() => streamTimed(url, outbox, data, codec, maxInFlight));
const fetchOnce = (url: string, files: readonly Uint8Array[]) => withCpu(() => fetchTimed(url, files));

/**
 * Node's other floor: the same files POSTed one at a time through node:http with a keep-alive agent — what
 * the live stream's transport uses in Node (fetch copies every body: several times the sender's CPU).
 */
async function httpTimed(url: string, files: readonly Uint8Array[]): Promise<Timed> {
  const target = new URL(url);
  const never = new AbortController().signal;
  const latencies: number[] = [];
  const t0 = performance.now();
  for (const body of files) {
    const t = performance.now();
    const headers = { "content-type": "application/avro", "idempotency-key": crypto.randomUUID() };
    const { status } = await nodeHttpPost(target, body, headers, never);
    if (status !== 200) throw new Error(`floor POST answered ${status}`);
    latencies.push(performance.now() - t);
  }
  return { ms: performance.now() - t0, latencies };
}
const httpOnce = (url: string, files: readonly Uint8Array[]) => withCpu(() => httpTimed(url, files));

/** Only the encoding: the same points through createWriter into memory, one file a batch (no network). */
async function encodeOnce(data: Round[]): Promise<Measured> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  for (const { ts, values } of data) {
    const w = createWriter(memorySink(), { codec: "snappy", maxBatchPoints: BATCH });
    for (let c = 0; c < CHANNELS; c++) w.enqueueBatch(`ch${c}`, ts, values[c]!);
    await w.close();
  }
  const ms = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  return { ms, latencies: [0], cpuMs: (used.user + used.system) / 1000 };
}

/**
 * Batch files a fresh server takes before each timed run (AVA_BENCH_LIVE_SERVER_WARMUP, default 8): what
 * "sustained" means is a long-running endpoint, and a server warmed by one batch was still tiering its hot
 * code up during the timed part (4.2–4.4M points/s into ingest against 5.0–5.2M after 8, same session).
 */
const SERVER_WARMUP = Number(process.env.AVA_BENCH_LIVE_SERVER_WARMUP ?? 8);

/**
 * RUNS runs of `once`, each against a fresh server that has first taken the first SERVER_WARMUP files of
 * `warmUp` (so its JIT and lazily loaded code are ready: a long-running endpoint's steady state is what is
 * timed); the medians, with the server's CPU time over the timed part.
 */
export async function measure(
  mode: Mode,
  warmUp: readonly Uint8Array[],
  once: (url: string) => Promise<Measured>,
) {
  const runs: (Measured & { serverCpuMs: number })[] = [];
  for (let i = 0; i < RUNS; i++) {
    const server = await startServer(mode);
    try {
      await fetchTimed(server.url, warmUp.slice(0, Math.max(1, SERVER_WARMUP)));
      const cpu = await server.cpuMs();
      const run = await once(server.url);
      runs.push({ ...run, serverCpuMs: (await server.cpuMs()) - cpu });
    } finally {
      await server.stop();
    }
  }
  return {
    ms: median(runs.map((r) => r.ms)),
    p50: median(runs.map((r) => percentile(r.latencies, 50))),
    p99: median(runs.map((r) => percentile(r.latencies, 99))),
    cpuMs: median(runs.map((r) => r.cpuMs)),
    serverCpuMs: median(runs.map((r) => r.serverCpuMs)),
  };
}

async function sustained(mode: Mode, nRounds: number): Promise<Row[]> {
  const data = liveRounds(nRounds);
  const points = nRounds * BATCH;
  const files = await batchFiles(data);
  const nullFiles = await batchFiles(data, "null");
  const floor = await measure(mode, files, (url) => fetchOnce(url, files));
  const httpFloor = await measure(mode, files, (url) => httpOnce(url, files));
  const nullFloor = await measure(mode, nullFiles, (url) => fetchOnce(url, nullFiles));
  const httpNullFloor = await measure(mode, nullFiles, (url) => httpOnce(url, nullFiles));
  const encodes: Measured[] = [];
  for (let i = 0; i < RUNS; i++) encodes.push(await encodeOnce(data));
  const encode = median(encodes.map((r) => r.ms));
  const encodeCpu = median(encodes.map((r) => r.cpuMs));
  // One unmeasured stream first: the sender's JIT warms up as the server's does.
  await measure(mode, files, (url) => streamOnce(url, memoryStorage(), data.slice(0, SERVER_WARMUP)));
  const memory = await measure(mode, files, (url) => streamOnce(url, memoryStorage(), data));
  // One batch in flight, as the stream sent before maxInFlight: each POST waits for the previous answer.
  const memoryOne = await measure(mode, files, (url) => streamOnce(url, memoryStorage(), data, "snappy", 1));
  const durable = await measure(mode, files, async (url) =>
    streamOnce(url, nodeStorage({ root: await temp("outbox") }), data),
  );
  const memoryNull = await measure(mode, nullFiles, (url) => streamOnce(url, memoryStorage(), data, "null"));
  const durableNull = await measure(mode, nullFiles, async (url) =>
    streamOnce(url, nodeStorage({ root: await temp("outbox") }), data, "null"),
  );
  const perMillion = (cpuMs: number) => `CPU ${(cpuMs / (points / 1e6)).toFixed(0)} ms per 1M points`;
  const cpus = (m: typeof floor) =>
    `CPU per 1M points: sender ${(m.cpuMs / (points / 1e6)).toFixed(0)} ms, server ${(m.serverCpuMs / (points / 1e6)).toFixed(0)} ms`;
  // Into the ingest endpoint the rate is judged against issue 13's target; the outbox against the floor.
  const target = (ms: number) => (mode === "ingest" ? `${versusTarget(points, ms, TARGET_NODE)}; ` : "");
  const row = (name: string, m: typeof floor, base = floor, httpBase = httpFloor): Row => ({
    case: `${mode}: ${name}`,
    median_ms: m.ms,
    rate: rate(points, m.ms, "points"),
    ratio: `${ratio(m.ms, base.ms)} / ${ratio(m.ms, base.ms + encode)}`,
    note: `${target(m.ms)}${versusFloor(m.ms, base.ms)}; ${ratio(m.ms, httpBase.ms)} the node:http floor; p50 ${m.p50.toFixed(0)} ms, p99 ${m.p99.toFixed(0)} ms enqueue-to-ack; ${cpus(m)}`,
  });
  const floorRow = (name: string, m: typeof floor): Row => ({
    case: `${mode}: ${name}`,
    median_ms: m.ms,
    rate: rate(points, m.ms, "points"),
    ratio: "1.00×",
    note: `${target(m.ms)}p50 ${m.p50.toFixed(0)} ms, p99 ${m.p99.toFixed(0)} ms; ${cpus(m)}`,
  });
  return [
    floorRow("plain fetch of the same snappy files (floor)", floor),
    {
      case: `${mode}: encoding alone (createWriter, snappy, no network)`,
      median_ms: encode,
      rate: rate(points, encode, "points"),
      note: perMillion(encodeCpu),
    },
    row("createLiveStream, memory outbox", memory),
    row("createLiveStream, memory outbox, maxInFlight 1", memoryOne),
    row("createLiveStream, nodeStorage outbox (fsync on)", durable),
    floorRow("plain node:http POST of the same snappy files (Node's floor)", httpFloor),
    floorRow("plain fetch of the same null-codec files (floor)", nullFloor),
    floorRow("plain node:http POST of the same null-codec files", httpNullFloor),
    row('createLiveStream codec "null", memory outbox', memoryNull, nullFloor, httpNullFloor),
    row(
      'createLiveStream codec "null", nodeStorage outbox (fsync on)',
      durableNull,
      nullFloor,
      httpNullFloor,
    ),
  ];
}

/** Batches stored while nothing listens; then the server comes up and the outbox drains. */
async function drain(mode: Mode, nRounds: number): Promise<Row[]> {
  const data = liveRounds(nRounds);
  const points = nRounds * BATCH;
  const files = await batchFiles(data);
  const drains: number[] = [];
  const floors: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const port = await freePort();
    const live = createLiveStream({
      url: `http://127.0.0.1:${port}/ingest`,
      outbox: nodeStorage({ root: await temp("drain") }),
      name: "drain",
      maxBatchPoints: BATCH,
      maxDelayMs: 10_000,
      backoffMs: 10,
      maxBackoffMs: 50, // the server's return is noticed within 50 ms
    });
    for (const { ts, values } of data) {
      await live.writable();
      for (let c = 0; c < CHANNELS; c++) live.enqueueBatch(`ch${c}`, ts, values[c]!);
    }
    while (live.status().batchesInOutbox < nRounds) await new Promise((r) => setTimeout(r, 20));
    const server = await startServer(mode, port);
    const t0 = performance.now();
    await live.close();
    drains.push(performance.now() - t0);
    await server.stop();
    const floorServer = await startServer(mode);
    floors.push((await fetchOnce(floorServer.url, files)).ms);
    await floorServer.stop();
  }
  const d = median(drains);
  const f = median(floors);
  const mb = files.reduce((n, b) => n + b.length, 0) / 2 ** 20;
  return [
    {
      case: `${mode}: plain fetch of the same files (floor)`,
      median_ms: f,
      rate: rate(points, f, "points"),
      ratio: "1.00×",
    },
    {
      case: `${mode}: outbox drain after an outage (${nRounds} batches, ${mb.toFixed(0)} MiB, nodeStorage)`,
      median_ms: d,
      rate: rate(points, d, "points"),
      ratio: ratio(d, f),
      note: `${((nRounds / d) * 1000).toFixed(1)} batches/s, ${((mb / d) * 1000).toFixed(0)} MiB/s; includes up to 50 ms to notice the server is back`,
    },
  ];
}

export async function benchLive(): Promise<void> {
  try {
    printTable(
      `Ingest endpoint alone, Node, in-process (no HTTP, no sender): ${INGEST_ROUNDS} batches of ${BATCH.toLocaleString("en")} points (medians of ${RUNS}); target ≥ ${TARGET_NODE / 1e6}M points/s`,
      await ingestAlone(temp),
    );
    printTable(
      `Live streaming on loopback, Node: ${CHANNELS} channels, ${BATCH.toLocaleString("en")}-point batches (medians of ${RUNS}; ratio = time / the floor's, then / (floor + encoding alone); targets: ≥ ${TARGET_NODE / 1e6}M points/s into ingest, ≤ 1.5× the floor)`,
      [
        ...(await sustained("discard", DISCARD_ROUNDS)),
        ...(await sustained("ingest", SUSTAINED_INGEST_ROUNDS)),
      ],
    );
    printTable(`Outbox drain after an outage, Node (medians of ${RUNS})`, [
      ...(await drain("discard", DISCARD_ROUNDS)),
      ...(await drain("ingest", INGEST_ROUNDS)),
    ]);
    // Loaded only now: Playwright is ~58 MB of heap, which every Mark-Compact of the Node sender (this
    // process) would otherwise walk — the Node cases timed the bench's heap along with the library.
    const { benchLiveBrowser } = await import("./live-browser.js");
    await benchLiveBrowser();
  } finally {
    await removeTemps();
  }
}

/** Removes the servers' and outboxes' folders made so far. */
export async function removeTemps(): Promise<void> {
  for (const dir of temps.splice(0)) await rm(dir, { recursive: true, force: true });
}
