// A time range of the raw table out as a file: an Avro stream (what a device or Nominal would ingest) or
// Parquet (the table's own format: the range appended to a table in memory storage, whose one data file is
// the export). Both read only the data files whose timestamps overlap the range.
import * as ava from "avalanche-web";
import { createWriter, memorySink } from "avalanche-web/avro";
import type * as A from "apache-arrow";
import type { TelemetryNamespace } from "../namespace.js";

const COLUMNS = ava.avro.avroStreamArrowSchema.fields.map((f) => f.name);

function rangeScan(ns: TelemetryNamespace, t0: number, t1: number, snapshotId?: string) {
  const from = BigInt(Math.floor(t0)) * 1_000_000n;
  const to = BigInt(Math.ceil(t1)) * 1_000_000n;
  return ns.points.scan({
    columns: COLUMNS,
    filter: (w) => w.and(w.gte("timestamp", from), w.lte("timestamp", to)),
    ...(snapshotId ? { snapshotId } : {}),
  });
}

/** One row's value in the writer's terms, from the column of its type. */
function valueAt(batch: A.RecordBatch, row: number): ava.avro.StreamValue | undefined {
  for (const kind of ["double", "long", "string", "double_array", "string_array", "json"]) {
    const column = batch.getChild(kind)!;
    if (!column.isValid(row)) continue;
    const v = column.get(row);
    if (kind === "double_array") return Float64Array.from(v as Iterable<number>);
    if (kind === "string_array") return [...(v as Iterable<string>)];
    if (kind === "json") return JSON.parse(v as string) as Record<string, unknown>;
    return v as number | bigint | string;
  }
  return undefined;
}

export async function exportAvro(ns: TelemetryNamespace, t0: number, t1: number, snapshotId?: string) {
  const sink = memorySink();
  const writer = createWriter(sink, { codec: "snappy" });
  let points = 0;
  for await (const batch of rangeScan(ns, t0, t1, snapshotId).batches()) {
    const channel = batch.getChild("channel")!;
    // exact ns from the buffer (Vector.get rounds timestamps to ms numbers)
    const time = batch.getChild("timestamp")!.data[0]!.values as BigInt64Array;
    const tags = batch.getChild("tags")!;
    const parsed = new Map<string, Record<string, string>>();
    for (let i = 0; i < batch.numRows; i++) {
      const value = valueAt(batch, i);
      if (value === undefined) continue;
      const text = tags.get(i) as string;
      let tag = parsed.get(text);
      if (!tag) {
        tag = JSON.parse(text) as Record<string, string>;
        parsed.set(text, tag);
      }
      writer.enqueue(channel.get(i) as string, time[i]!, value, tag);
      points++;
    }
  }
  await writer.close();
  return { bytes: sink.bytes(), points };
}

export async function exportParquet(ns: TelemetryNamespace, t0: number, t1: number, snapshotId?: string) {
  const rows = await rangeScan(ns, t0, t1, snapshotId).toArrow();
  if (rows.numRows === 0) throw new ava.AvaError("NOT_FOUND", "no points in that range");
  const Scratch = ava.defineNamespace({
    name: "export",
    tables: { points: ava.table({ schema: ava.avro.avroStreamArrowSchema, rowLineage: false }) },
  });
  const scratch = await Scratch.open({ storage: ava.memoryStorage() });
  await scratch.push();
  const res = await scratch.points.append(rows);
  const [file] = res.snapshot.addedFiles;
  return { bytes: await scratch.storage.files.read(file!.path), points: rows.numRows };
}

/** Hands bytes to the browser as a download. */
export function download(bytes: Uint8Array, name: string): void {
  const url = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>]));
  const a = Object.assign(document.createElement("a"), { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
