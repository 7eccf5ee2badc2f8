// Avro stream files into the raw table: the file is streamed through a byte counter (the progress bar),
// decoded to the long Arrow layout by avroStreamToArrow, and appended as one snapshot. A damaged file is an
// AvaError (AVRO_CORRUPT, AVRO_SCHEMA) and nothing is appended.
import { avroStreamToArrow } from "avalanche-web/avro";
import type * as A from "apache-arrow";
import type { TelemetryNamespace } from "../namespace.js";

export interface ImportedChannel {
  name: string;
  kind: "double" | "long" | "string" | "double_array" | "string_array" | "json";
  points: number;
}

export interface ImportSummary {
  file: string;
  points: number;
  channels: ImportedChannel[];
  /** Epoch ms of the first and last point. */
  first: number;
  last: number;
  snapshotId: string;
}

const KINDS = ["double", "long", "string", "double_array", "string_array", "json"] as const;

/** Channels, their value type and point counts, and the time range of an imported table. */
export function summarize(table: A.Table): Omit<ImportSummary, "file" | "snapshotId"> {
  const channel = table.getChild("channel")!;
  const times = table.getChild("timestamp")!;
  const values = KINDS.map((k) => table.getChild(k)!);
  const byName = new Map<string, ImportedChannel>();
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < table.numRows; i++) {
    const name = channel.get(i) as string;
    let c = byName.get(name);
    if (!c) {
      const kind = KINDS[values.findIndex((v) => v.isValid(i))] ?? "double";
      c = { name, kind, points: 0 };
      byName.set(name, c);
    }
    c.points++;
    const t = times.get(i) as number | bigint; // arrow reads ns timestamps as ms numbers
    const ms = typeof t === "bigint" ? Number(t) / 1e6 : t;
    if (ms < first) first = ms;
    if (ms > last) last = ms;
  }
  return { points: table.numRows, channels: [...byName.values()], first, last };
}

/** Reads `file` with progress (0..1) and appends its points to the raw table. */
export async function importAvro(
  ns: TelemetryNamespace,
  file: File,
  onProgress: (fraction: number) => void,
): Promise<ImportSummary> {
  let read = 0;
  const counted = file.stream().pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, out) {
        read += chunk.byteLength;
        onProgress(file.size ? read / file.size : 1);
        out.enqueue(chunk);
      },
    }),
  );
  const table = await avroStreamToArrow(counted, { tags: { source: file.name } });
  const res = await ns.points.append(table);
  return { file: file.name, ...summarize(table), snapshotId: res.snapshotId };
}
