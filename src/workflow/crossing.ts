// Values crossing into and out of workers. Structured clone carries plain data. An Arrow table whose
// buffers are its own crosses as those buffers — the schema as a small IPC message, each batch as a tree
// of typed arrays — so nothing is serialized: a value that `move`s transfers them (no copy at all),
// otherwise structured clone copies them. Slices and tables over shared buffers are serialized as IPC
// instead. AppendResults cross the same way, and a Skip keeps its reason.
import * as A from "apache-arrow";
import type { z } from "zod";
import { AppendResult } from "../table/append-result.js";
import { isSkip, Skip } from "./context.js";

type Buffer = ArrayBufferView | undefined;

/** One Arrow Data node: its buffers, in Arrow's BufferType order (offsets, values, validity, type ids). */
interface WireData {
  offset: number;
  length: number;
  nullCount: number;
  buffers: [Buffer, Buffer, Buffer, Buffer];
  children: WireData[];
  dictionary?: WireData[];
}

interface WireTable {
  schema: Uint8Array;
  batches: WireData[];
}

type Tagged =
  | { __ava: "arrow"; table: WireTable }
  | { __ava: "arrow-ipc"; ipc: Uint8Array }
  | { __ava: "append"; name: string; snapshot: AppendResult<unknown>["snapshot"]; data: unknown }
  | { __ava: "skip"; reason: string };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype;
}

class Transfers {
  readonly list = new Set<ArrayBuffer>();
  constructor(readonly move: boolean) {}

  buffer(view: ArrayBufferView | undefined): Buffer {
    if (view && this.move) this.list.add(view.buffer as ArrayBuffer);
    return view;
  }
}

/** Bytes of slack tolerated past what a buffer must hold (Arrow pads buffers to 8 or 64 bytes). */
const PADDING = 64;

function whole(view: ArrayBufferView | undefined, neededBytes: number): boolean {
  if (!view || view.byteLength === 0) return true;
  return (
    view.byteOffset === 0 &&
    view.byteLength === view.buffer.byteLength &&
    view.byteLength <= neededBytes + PADDING
  );
}

/**
 * True when every buffer of `data` is an ArrayBuffer of its own, holding just this data: then the buffers
 * can cross as they are. Slices (an offset, or a length shorter than the buffers) and views into one
 * shared buffer (tables read from IPC or Parquet) are not: their buffers hold other data too.
 */
function exclusive(data: A.Data): boolean {
  if (data.offset !== 0) return false;
  const n = data.length;
  const offsets = data.valueOffsets as Int32Array | undefined;
  const values = data.values as ArrayBufferView | undefined;
  if (!whole(data.nullBitmap, Math.ceil(n / 8))) return false;
  if (offsets && !whole(offsets, (n + 1) * offsets.BYTES_PER_ELEMENT)) return false;
  let valueBytes: number;
  if (A.DataType.isBool(data.type)) valueBytes = Math.ceil(n / 8);
  else if (offsets)
    valueBytes = Number(offsets[n] ?? 0) * (values ? (values as Uint8Array).BYTES_PER_ELEMENT : 1);
  else valueBytes = n * data.stride * (values ? (values as Uint8Array).BYTES_PER_ELEMENT : 1);
  if (!whole(values, valueBytes) || !whole(data.typeIds, n)) return false;
  return data.children.every(exclusive) && (data.dictionary?.data.every(exclusive) ?? true);
}

function wireData(data: A.Data, t: Transfers): WireData {
  const out: WireData = {
    offset: data.offset,
    length: data.length,
    nullCount: data.nullCount,
    buffers: [
      t.buffer(data.valueOffsets as ArrayBufferView | undefined),
      t.buffer(data.values as ArrayBufferView | undefined),
      t.buffer(data.nullBitmap),
      t.buffer(data.typeIds),
    ],
    children: data.children.map((c) => wireData(c, t)),
  };
  if (data.dictionary) out.dictionary = data.dictionary.data.map((d) => wireData(d, t));
  return out;
}

function wireTable(table: A.Table, t: Transfers): WireTable {
  return {
    schema: A.tableToIPC(new A.Table(table.schema), "stream"),
    batches: table.batches.map((b) => wireData(b.data, t)),
  };
}

function fromWire(type: A.DataType, w: WireData): A.Data {
  const children = w.children.map((c, i) => fromWire(type.children[i]!.type, c));
  const dictionary = w.dictionary
    ? new A.Vector(w.dictionary.map((d) => fromWire((type as A.Dictionary).dictionary, d)))
    : undefined;
  const [offsets, values, validity, typeIds] = w.buffers;
  const buffers = { 0: offsets, 1: values, 2: validity, 3: typeIds } as unknown as A.Data["buffers"];
  return new A.Data(type, w.offset, w.length, w.nullCount, buffers, children, dictionary);
}

function tableFromWire(w: WireTable): A.Table {
  const schema = A.tableFromIPC(w.schema).schema;
  const struct = new A.Struct(schema.fields);
  return new A.Table(
    schema,
    w.batches.map((b) => new A.RecordBatch(schema, fromWire(struct, b) as A.Data<A.Struct>)),
  );
}

/**
 * `value` ready for postMessage and the buffers to transfer with it. `move`: the sender will not use the
 * value again, so its Arrow buffers may be transferred instead of copied.
 */
export function encodeValue(
  value: unknown,
  { move = false } = {},
): { value: unknown; transfer: ArrayBuffer[] } {
  const t = new Transfers(move);
  const walk = (v: unknown): unknown => {
    if (v instanceof A.Table) {
      if (v.batches.every((b) => exclusive(b.data)))
        return { __ava: "arrow", table: wireTable(v, t) } satisfies Tagged;
      // Slices and shared buffers: serialized, which copies just the rows, into bytes that can always move.
      const ipc = A.tableToIPC(v, "stream");
      t.list.add(ipc.buffer as ArrayBuffer);
      return { __ava: "arrow-ipc", ipc } satisfies Tagged;
    }
    if (v instanceof AppendResult)
      return { __ava: "append", name: v.table, snapshot: v.snapshot, data: walk(v.data) };
    if (isSkip(v)) return { __ava: "skip", reason: v.reason } satisfies Tagged;
    if (Array.isArray(v)) return v.map(walk);
    if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  const out = walk(value);
  return { value: out, transfer: [...t.list] };
}

/** The zod model of a table by its identifier, so that an AppendResult that crossed still gives models. */
export type ModelLookup = (identifier: string) => z.ZodObject | undefined;

export function decodeValue(value: unknown, models: ModelLookup = () => undefined): unknown {
  const decode = (v: unknown) => decodeValue(v, models);
  if (Array.isArray(value)) return value.map(decode);
  if (!isPlainObject(value)) return value;
  const tagged = value as Partial<Tagged>;
  if (tagged.__ava === "arrow") return tableFromWire((value as { table: WireTable }).table);
  if (tagged.__ava === "arrow-ipc") return A.tableFromIPC((value as { ipc: Uint8Array }).ipc);
  if (tagged.__ava === "skip") return new Skip((value as { reason: string }).reason);
  if (tagged.__ava === "append") {
    const v = value as Extract<Tagged, { __ava: "append" }>;
    return new AppendResult(v.name, v.snapshot, decode(v.data) as A.Table, models(v.name));
  }
  return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, decode(x)]));
}
