// The simulated rig: 11 channels at 100 Hz. Like a real device it writes Avro stream batches; every flush
// (1 s of samples) is appended to the raw table as one snapshot, from this Worker, so the page's thread
// never encodes or writes telemetry.
import * as ava from "avalanche-web";
import { CHANNELS, sample } from "./channels.js";
import { openStorage, Telemetry } from "./namespace.js";

export type SimulatorCommand =
  | { type: "start"; storage: string; hz: number; flushMs: number }
  | { type: "stop" };
export type SimulatorReport =
  | { type: "flushed"; points: number; snapshotId: string; appendMs: number }
  | { type: "error"; message: string };

let timer: ReturnType<typeof setInterval> | undefined;
let index = 0;

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
      const sink = ava.avro.memorySink();
      const w = ava.avro.createWriter(sink, { codec: "null" });
      const now = Date.now();
      const times: bigint[] = [];
      const columns = new Map<string, unknown[]>(CHANNELS.map((c) => [c.name, []]));
      for (; next <= now; next += stepMs, index++) {
        times.push(BigInt(Math.round(next)) * 1_000_000n);
        const s = sample(next, index) as Record<string, unknown>;
        for (const c of CHANNELS) columns.get(c.name)!.push(s[c.name]);
      }
      if (times.length === 0) return;
      for (const c of CHANNELS) {
        const values = columns.get(c.name)!;
        w.enqueueBatch(
          c.name,
          times,
          c.kind === "double" ? Float64Array.from(values as number[]) : (values as never),
        );
      }
      await w.close();
      const t0 = performance.now();
      const res = await ns.points.appendAvroStream(sink.bytes(), { tags: { source: "simulator" } });
      const report: SimulatorReport = {
        type: "flushed",
        points: times.length * CHANNELS.length,
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

addEventListener("message", (e: MessageEvent<SimulatorCommand>) => {
  if (e.data.type === "start" && timer === undefined) void start(e.data.storage, e.data.hz, e.data.flushMs);
  if (e.data.type === "stop" && timer !== undefined) {
    clearInterval(timer);
    timer = undefined;
  }
});
