// `npm run bench -- avro`, first part: the streaming writer (createWriter + enqueueBatch, and enqueue point
// by point) and avroStreamToArrow beside avsc, in Node and then in headless Chromium, each side by side
// with avsc in the same run (bench/avro-writer-cases.ts).
import avsc from "avsc";
import { type Avsc, avscPeer } from "./avsc-blocks.js";
import { WRITER_POINTS, writerCases } from "./avro-writer-cases.js";
import { POINTS } from "./avro-data.js";
import { runBenchPage, type Timings } from "./browser-page.js";
import { median, printTable, type Row, rate, ratio, repeat } from "./lib.js";

function rows(t: Timings, where: string): Row[] {
  const row = (key: string, label: string, points: number, peerKey?: string, target = ""): Row => ({
    case: label,
    median_ms: median(t[key]!),
    rate: rate(points, median(t[key]!), "points"),
    ratio: peerKey ? ratio(median(t[peerKey]!), median(t[key]!)) : "",
    note: `${peerKey ? "ratio = × avsc; " : ""}${target}${where}, ${t[key]!.length} runs`,
  });
  return [
    row(
      "writer_batch",
      "ours: createWriter + enqueueBatch, 2M points, null",
      WRITER_POINTS,
      "avsc_write",
      "target ≥ 10×; ",
    ),
    row(
      "writer_single",
      "ours: createWriter + enqueue point by point, 2M points",
      WRITER_POINTS,
      "avsc_write",
      "target ≥ 5 M/s in Node; ",
    ),
    row(
      "writer_batch_memory",
      "ours: the same into a memorySink (every block copied once into one growing buffer)",
      WRITER_POINTS,
      "avsc_write",
    ),
    row("avsc_write", "avsc BlockEncoder, null (BigInt longs), 2M points", WRITER_POINTS),
    row("to_arrow_2M", "ours: avroStreamToArrow, 2M points", WRITER_POINTS, "avsc_read_2M"),
    row("avsc_read_2M", "avsc BlockDecoder, 2M points", WRITER_POINTS),
    row("to_arrow_10M", "ours: avroStreamToArrow, 10M points", POINTS, "avsc_read_10M"),
    row("avsc_read_10M", "avsc BlockDecoder, 10M points", POINTS),
  ];
}

export async function benchAvroWriter(): Promise<void> {
  const node = await writerCases(repeat, async () => avscPeer(avsc as unknown as Avsc, Buffer));
  printTable(
    "The streaming writer and avroStreamToArrow in Node, beside avsc (same run)",
    rows(node, "Node"),
  );
  const browser = await runBenchPage("avro-writer.html");
  printTable(
    "The streaming writer and avroStreamToArrow in headless Chromium, beside avsc (same page)",
    rows(browser, "Chromium"),
  );
}
