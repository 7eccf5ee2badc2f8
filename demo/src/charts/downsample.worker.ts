// The chart Worker: reads a time window of the raw table (files outside it are pruned by their timestamp
// statistics, never read) and reduces it to min/max per pixel. The page only ever gets a few thousand points
// per panel, however many millions are stored, and its thread never decodes Parquet.
import type * as A from "apache-arrow";
import { Telemetry, openStorage } from "../namespace.js";
import { MinMaxBuckets, type Downsampled, type SeriesSpec } from "./downsample.js";

export interface DownsampleRequest {
  id: number;
  storage: string;
  series: SeriesSpec[];
  /** Window in epoch ms. */
  t0: number;
  t1: number;
  width: number;
  snapshotId?: string;
}
export type DownsampleReply =
  | ({ id: number; ms: number } & Downsampled)
  | { id: number; error: string; code?: string };

const namespaces = new Map<string, ReturnType<typeof Telemetry.open>>();

function namespace(name: string) {
  let ns = namespaces.get(name);
  if (!ns) {
    ns = Telemetry.open({ storage: openStorage(name) });
    namespaces.set(name, ns);
  }
  return ns;
}

/** Folds one record batch into the buckets, reading Arrow buffers directly (no per-row objects). */
function fold(batch: A.RecordBatch, series: SeriesSpec[], buckets: MinMaxBuckets): void {
  const channel = batch.getChild("channel")!.data[0]!;
  const dictionary = channel.dictionary!;
  // dictionary index -> the series drawn from that channel
  const wanted: number[][] = [];
  for (let d = 0; d < dictionary.length; d++) {
    const name = dictionary.get(d) as string;
    wanted.push(series.flatMap((s, i) => (s.channel === name ? [i] : [])));
  }
  const codes = channel.values as Int32Array;
  const times = batch.getChild("timestamp")!.data[0]!.values as BigInt64Array;
  const doubles = batch.getChild("double")!.data[0]!.values as Float64Array;
  const longs = batch.getChild("long")!.data[0]!.values as BigInt64Array;
  const strings = batch.getChild("string")!;
  const arrays = batch.getChild("double_array")!.data[0]!;
  const offsets = arrays.valueOffsets as Int32Array;
  const items = arrays.children[0]!.values as Float64Array;
  for (let row = 0; row < batch.numRows; row++) {
    const targets = wanted[codes[row]!]!;
    if (targets.length === 0) continue;
    const ms = Number(times[row]!) / 1e6;
    for (const s of targets) {
      const spec = series[s]!;
      let v: number;
      if (spec.column === "double") v = doubles[row]!;
      else if (spec.column === "long") v = Number(longs[row]!);
      else if (spec.column === "string") v = spec.levels?.indexOf(strings.get(row) as string) ?? Number.NaN;
      else {
        const at = offsets[row]! + (spec.element ?? 0);
        v = at < offsets[row + 1]! ? items[at]! : Number.NaN;
      }
      buckets.add(s, ms, v);
    }
  }
}

async function downsample(req: DownsampleRequest): Promise<DownsampleReply> {
  const started = performance.now();
  const ns = await namespace(req.storage);
  const buckets = new MinMaxBuckets(req.t0, req.t1, req.width, req.series.length);
  const channels = [...new Set(req.series.map((s) => s.channel))];
  const from = BigInt(Math.floor(req.t0)) * 1_000_000n;
  const to = BigInt(Math.ceil(req.t1)) * 1_000_000n;
  const scan = ns.points.scan({
    columns: ["channel", "timestamp", "double", "long", "string", "double_array"],
    filter: (w) => w.and(w.gte("timestamp", from), w.lt("timestamp", to), w.in("channel", channels)),
    ...(req.snapshotId ? { snapshotId: req.snapshotId } : {}),
  });
  for await (const batch of scan.batches()) fold(batch, req.series, buckets);
  return { id: req.id, ...buckets.result(), ms: performance.now() - started };
}

addEventListener("message", (e: MessageEvent<DownsampleRequest>) => {
  downsample(e.data).then(
    (reply) => postMessage(reply),
    (err) => postMessage({ id: e.data.id, error: String(err?.message ?? err), code: err?.code }),
  );
});
