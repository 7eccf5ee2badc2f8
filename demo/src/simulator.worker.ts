// The simulated rig: 11 channels at 100 Hz. Like a real device it writes Avro stream batches; every flush
// (1 s of samples) is appended to the raw table as one snapshot, from this Worker, so the page's thread
// never encodes or writes telemetry. "backfill" writes hours of history at once (one snapshot a minute of
// samples), to see how the dashboard holds up with millions of stored points.
import * as ava from "avalanche-web";
import { CHANNELS, sample } from "./channels.js";
import { openStorage, Telemetry } from "./namespace.js";

export type SimulatorCommand =
  | { type: "start"; storage: string; hz: number; flushMs: number }
  | { type: "stop" }
  | { type: "backfill"; storage: string; hz: number; points: number };
export type SimulatorReport =
  | { type: "flushed"; points: number; snapshotId: string; appendMs: number }
  | { type: "backfilled"; points: number; snapshots: number; ms: number; endMs: number }
  | { type: "error"; message: string };

let timer: ReturnType<typeof setInterval> | undefined;
let index = 0;

/** Samples every channel at the instants `from`, `from + stepMs`, … up to `to`: one Avro stream file. */
async function encode(
  from: number,
  to: number,
  stepMs: number,
): Promise<{ bytes: Uint8Array; next: number; points: number }> {
  const sink = ava.avro.memorySink();
  const w = ava.avro.createWriter(sink, { codec: "null", maxBatchPoints: 1_000_000 });
  const times: bigint[] = [];
  const columns = new Map<string, unknown[]>(CHANNELS.map((c) => [c.name, []]));
  let next = from;
  for (; next <= to; next += stepMs, index++) {
    times.push(BigInt(Math.round(next)) * 1_000_000n);
    const s = sample(next, index) as Record<string, unknown>;
    for (const c of CHANNELS) columns.get(c.name)!.push(s[c.name]);
  }
  if (times.length > 0)
    for (const c of CHANNELS) {
      const values = columns.get(c.name)!;
      w.enqueueBatch(
        c.name,
        times,
        c.kind === "double" ? Float64Array.from(values as number[]) : (values as never),
      );
    }
  await w.close();
  return { bytes: sink.bytes(), next, points: times.length * CHANNELS.length };
}

async function start(storageName: string, hz: number, flushMs: number): Promise<void> {
  const ns = await Telemetry.open({ storage: openStorage(storageName) });
  await ns.push();
  const stepMs = 1000 / hz;
  let next = Math.floor(Date.now() / stepMs) * stepMs;
  let busy = false;
  timer = setInterval(async () => {
    if (busy) return; // a slow append (a busy disk) makes the next flush bigger, never concurrent
    busy = true;
    try {
      const batch = await encode(next, Date.now(), stepMs);
      if (batch.points === 0) return;
      next = batch.next;
      const t0 = performance.now();
      const res = await ns.points.appendAvroStream(batch.bytes, { tags: { source: "simulator" } });
      const report: SimulatorReport = {
        type: "flushed",
        points: batch.points,
        snapshotId: res.snapshotId,
        appendMs: performance.now() - t0,
      };
      postMessage(report);
    } catch (err) {
      postMessage({
        type: "error",
        message: String((err as Error)?.message ?? err),
      } satisfies SimulatorReport);
    } finally {
      busy = false;
    }
  }, flushMs);
}

/** Writes `points` points of history ending now, a minute of samples per append. */
async function backfill(storageName: string, hz: number, points: number): Promise<void> {
  const t0 = performance.now();
  const ns = await Telemetry.open({ storage: openStorage(storageName) });
  await ns.push();
  const stepMs = 1000 / hz;
  const end = Math.floor(Date.now() / stepMs) * stepMs;
  let next = end - Math.ceil(points / CHANNELS.length) * stepMs;
  let written = 0;
  let snapshots = 0;
  while (next < end) {
    const batch = await encode(next, Math.min(end, next + 60_000) - stepMs / 2, stepMs);
    next = batch.next;
    await ns.points.appendAvroStream(batch.bytes, { tags: { source: "backfill" } });
    written += batch.points;
    snapshots++;
  }
  postMessage({
    type: "backfilled",
    points: written,
    snapshots,
    ms: performance.now() - t0,
    endMs: end,
  } satisfies SimulatorReport);
}

addEventListener("message", (e: MessageEvent<SimulatorCommand>) => {
  const c = e.data;
  if (c.type === "start" && timer === undefined) void start(c.storage, c.hz, c.flushMs);
  if (c.type === "stop" && timer !== undefined) {
    clearInterval(timer);
    timer = undefined;
  }
  if (c.type === "backfill")
    backfill(c.storage, c.hz, c.points).catch((err) =>
      postMessage({
        type: "error",
        message: String((err as Error)?.message ?? err),
      } satisfies SimulatorReport),
    );
});
