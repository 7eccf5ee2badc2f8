// The Avro stream file the demo test drops on the page: two channels a simulator does not have, 10 s at
// 100 Hz starting at a fixed time, written by the library's own writer (the Avro interop tests cover others').
import { createWriter, memorySink } from "../../src/avro.js";

export const FIXTURE_START_MS = Date.UTC(2026, 0, 1, 12, 0, 0);

export async function demoAvroFixture(): Promise<Uint8Array> {
  const sink = memorySink();
  const w = createWriter(sink, { codec: "snappy" });
  const n = 1000;
  const times = BigInt64Array.from({ length: n }, (_, i) => BigInt(FIXTURE_START_MS + i * 10) * 1_000_000n);
  w.enqueueBatch(
    "bench.pressure",
    times,
    Float64Array.from({ length: n }, (_, i) => 101 + Math.sin(i / 50)),
  );
  w.enqueueBatch(
    "bench.mode",
    times,
    Array.from({ length: n }, (_, i) => (i < n / 2 ? "warmup" : "run")),
  );
  await w.close();
  return sink.bytes();
}
