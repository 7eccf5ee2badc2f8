// Arrow <-> Parquet through parquet-wasm. The wasm is loaded on first use: in Node the package's `node`
// export loads it synchronously; elsewhere the ESM build's init() fetches the .wasm next to it (bundlers
// rewrite that URL), which also works inside a module Worker.
import * as A from "apache-arrow";
import { AvaError } from "../errors.js";
import { BufferPool } from "../util/buffer-pool.js";
import { concatBytes, ScratchBytes } from "../util/bytes.js";
import { tableToIpcStream } from "../util/ipc-stream.js";
import { isFlatWritable, writeFlatParquet } from "./flat-writer.js";

type ParquetWasm = typeof import("parquet-wasm");
let loading: Promise<ParquetWasm> | undefined;

export function loadParquetWasm(): Promise<ParquetWasm> {
  loading ??= (async () => {
    const mod = await import("parquet-wasm");
    const init = (mod as { default?: unknown }).default;
    if (typeof init === "function") await (init as () => Promise<unknown>)();
    return mod;
  })();
  return loading;
}

export type ParquetCompression = "uncompressed" | "snappy" | "gzip" | "brotli" | "lz4_raw" | "zstd";
export const PARQUET_COMPRESSIONS: readonly ParquetCompression[] = [
  "uncompressed",
  "snappy",
  "gzip",
  "brotli",
  "lz4_raw",
  "zstd",
];

/** A compression to write Parquet with; any other value is an INVALID_ARGUMENT (`at` says whose option). */
export function checkParquetCompression(value: unknown, at: string): ParquetCompression {
  if ((PARQUET_COMPRESSIONS as readonly unknown[]).includes(value)) return value as ParquetCompression;
  throw new AvaError(
    "INVALID_ARGUMENT",
    `${at}: compression ${JSON.stringify(value)} is not supported (supported: ${PARQUET_COMPRESSIONS.join(", ")})`,
  );
}

export interface EncodeOptions {
  /**
   * Column compression; LZO is never offered (it crashes parquet-wasm 0.8). "uncompressed" tables of flat
   * columns (flat-writer.ts) are written in JS, several times faster than through wasm.
   */
  compression?: ParquetCompression;
}

/** Files of the JS flat writer that were written and given back: the next one is written over one. */
const fileBuffers = new BufferPool(32 * 1024 * 1024);

/**
 * `encodeParquet` for bytes that are only written to a FileStore (without `handOver`: the store writes or
 * copies them before it resolves) and then done with. They may sit in a pooled buffer: call `release()`
 * once the write has settled, and read them no more.
 */
export async function encodeParquetToWrite(
  table: A.Table,
  options: EncodeOptions = {},
): Promise<{ bytes: Uint8Array; release: () => void }> {
  if (options.compression !== "uncompressed" || !isFlatWritable(table))
    return { bytes: await encodeParquet(table, options), release: () => {} };
  const bytes = writeFlatParquet(table, CREATED_BY, (n) => fileBuffers.take(n));
  // The whole buffer (a view of a pooled or grown one starts at its beginning) goes back.
  return { bytes, release: () => fileBuffers.giveBack(new Uint8Array(bytes.buffer)) };
}

/**
 * Rows handed to parquet-wasm at a time. A large table goes through its streaming writer a slice at a
 * time, so no IPC copy of the whole table is ever made in JS or in wasm memory (a 10M-row table made a
 * 1.2 GB one, and wasm memory growth re-copied it).
 */
const SLICE_ROWS = 65_536;
/**
 * Rows up to which a table goes into parquet-wasm as the stream tableToIpcStream lays out, its messages
 * encoded once per schema and shape: for a small append, apache-arrow's writer spent more on encoding
 * the schema message (each field's metadata too: a table with Iceberg metadata carries Parquet field ids)
 * than on the rows.
 */
const SMALL_ROWS = 4096;
const CREATED_BY = "avalanche-web";

/** With `encoder` (see encodeParquetFromIpc) parquet-wasm writes a table of up to SLICE_ROWS rows there. */
export async function encodeParquet(
  table: A.Table,
  { compression = "zstd" }: EncodeOptions = {},
  encoder?: ParquetEncoder,
): Promise<Uint8Array> {
  checkParquetCompression(compression, "encodeParquet");
  if (compression === "uncompressed" && isFlatWritable(table)) return writeFlatParquet(table, CREATED_BY);
  if (encoder && table.numRows <= SLICE_ROWS) {
    const ipc = table.numRows <= SMALL_ROWS ? tableToIpcStream(table) : concatBytes(await ipcChunks(table));
    return encoder(ipc, writerSpec(table.schema, compression));
  }
  const { pq, props } = await wasmWriter(table.schema, compression);
  if (table.numRows <= SMALL_ROWS)
    return pq.writeParquet(pq.Table.fromIPCStream(tableToIpcStream(table)), props);
  if (table.numRows <= SLICE_ROWS) return pq.writeParquet(toWasm(pq, await ipcChunks(table)), props);
  let at = 0;
  const batches = new ReadableStream({
    async pull(controller) {
      if (at >= table.numRows) return controller.close();
      const slice = toWasm(pq, await ipcChunks(table.slice(at, at + SLICE_ROWS)));
      at += SLICE_ROWS;
      for (const batch of slice.recordBatches()) controller.enqueue(batch);
      slice.free();
    },
  });
  const chunks: Uint8Array[] = [];
  for await (const chunk of (await pq.transformParquetStream(batches, props)) as ReadableStream<Uint8Array>)
    chunks.push(chunk);
  return concatBytes(chunks);
}

/**
 * Rows already held as one Arrow IPC stream of `schema` (inlined appends spliced together), written as
 * Parquet by parquet-wasm straight from those bytes: no Arrow JS decode and re-encode on the way. The
 * stream is copied into wasm memory whole, so it is for what a flush or compaction group holds (a few
 * MB), not for tables of millions of rows. With `encoder` (the storage's, see Storage.parquetEncoder)
 * parquet-wasm runs there, off this thread.
 */
export async function encodeParquetFromIpc(
  ipc: Uint8Array,
  schema: A.Schema,
  { compression = "zstd" }: EncodeOptions = {},
  encoder?: ParquetEncoder,
): Promise<Uint8Array> {
  checkParquetCompression(compression, "encodeParquetFromIpc");
  const spec = writerSpec(schema, compression);
  return encoder ? encoder(ipc, spec) : encodeIpcHere(ipc, spec);
}

/** An IPC stream written as Parquet under `spec` by parquet-wasm on this thread. */
export async function encodeIpcHere(ipc: Uint8Array, spec: WriterSpec): Promise<Uint8Array> {
  const pq = await loadParquetWasm();
  return pq.writeParquet(pq.Table.fromIPCStream(ipc), writerProperties(pq, spec));
}

/**
 * A writer's settings as plain data, so that another thread can apply them (see ParquetEncoder): the
 * codec, the columns with dictionary pages, the columns delta-encoded.
 */
export interface WriterSpec {
  compression: ParquetCompression;
  createdBy: string;
  dictionary: string[];
  delta: string[];
}

/**
 * Writes an Arrow IPC stream as Parquet under `spec` somewhere else than this thread (Node storage: a
 * worker thread), giving exactly the bytes encodeParquetFromIpc gives here. `ipc` stays the caller's: an
 * encoder that sends it elsewhere sends a copy.
 */
export type ParquetEncoder = (ipc: Uint8Array, spec: WriterSpec) => Promise<Uint8Array>;

async function wasmWriter(schema: A.Schema, compression: ParquetCompression) {
  const pq = await loadParquetWasm();
  return { pq, props: writerProperties(pq, writerSpec(schema, compression)) };
}

/**
 * Dictionary pages only for top-level string columns, where repeats are the rule (channels, tags, names);
 * on numbers every value was hashed until the dictionary overflowed, which doubled the encode time of a
 * telemetry table for no gain. 64-bit integers and timestamps are delta-encoded: sorted or slowly moving
 * series (time above all) shrink to a few bits a value.
 */
export function writerSpec(schema: A.Schema, compression: ParquetCompression): WriterSpec {
  const spec: WriterSpec = { compression, createdBy: CREATED_BY, dictionary: [], delta: [] };
  for (const field of schema.fields) {
    const type = field.type;
    if (A.DataType.isUtf8(type) || A.DataType.isBinary(type) || A.DataType.isDictionary(type))
      spec.dictionary.push(field.name);
    else if ((A.DataType.isInt(type) && type.bitWidth === 64) || A.DataType.isTimestamp(type))
      spec.delta.push(field.name);
  }
  return spec;
}

/** parquet-wasm's writer properties of `spec` (a worker thread applies the same: storage/node/parquet-thread.ts). */
function writerProperties(pq: ParquetWasm, spec: WriterSpec) {
  let builder = new pq.WriterPropertiesBuilder()
    .setCompression(pq.Compression[PQ_CODECS[spec.compression]])
    .setCreatedBy(spec.createdBy)
    .setDictionaryEnabled(false);
  for (const name of spec.dictionary) builder = builder.setColumnDictionaryEnabled(name, true);
  for (const name of spec.delta) builder = builder.setColumnEncoding(name, pq.Encoding.DELTA_BINARY_PACKED);
  return builder.build();
}

/** parquet-wasm's name of each codec (its Compression enum). */
export const PQ_CODECS = {
  uncompressed: "UNCOMPRESSED",
  snappy: "SNAPPY",
  gzip: "GZIP",
  brotli: "BROTLI",
  lz4_raw: "LZ4_RAW",
  zstd: "ZSTD",
} as const satisfies Record<ParquetCompression, string>;

/** A table's Arrow IPC stream, in the writer's chunks (apache-arrow's own join was about 3× slower). */
async function ipcChunks(table: A.Table): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of A.RecordBatchStreamWriter.writeAll(table)) chunks.push(chunk);
  return chunks;
}

/**
 * Joins IPC chunks in one reused buffer and hands them to wasm, which copies them into its own memory.
 * Synchronous, so no other encode can reuse the buffer in between. A fresh buffer per slice cost more in
 * page faults than the copy itself.
 */
const scratch = new ScratchBytes();
function toWasm(pq: ParquetWasm, chunks: readonly Uint8Array[]): import("parquet-wasm").Table {
  const joined = scratch.take(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    joined.set(c, at);
    at += c.length;
  }
  return pq.Table.fromIPCStream(joined);
}

export interface DecodeOptions {
  columns?: readonly string[];
  /** Rows per decoded record batch; parquet-wasm's default (1024) makes many small batches. */
  batchSize?: number;
  /** Names the file in errors. */
  path?: string;
}

/**
 * A row-less table of the schema, its columns built from their types. parquet-wasm's browser build
 * decodes the List columns of a row-less file with no child data, which Arrow's IPC writer cannot write.
 */
function emptyTable(schema: A.Schema): A.Table {
  const children = schema.fields.map((f) => A.makeBuilder({ type: f.type }).finish().flush());
  const struct = A.makeData({ type: new A.Struct(schema.fields), length: 0, nullCount: 0, children });
  return new A.Table(schema, [new A.RecordBatch(schema, struct)]);
}

export async function decodeParquet(
  bytes: Uint8Array,
  { columns, path = "(bytes)" }: DecodeOptions = {},
): Promise<A.Table> {
  const pq = await loadParquetWasm();
  try {
    const wasmTable = pq.readParquet(bytes, columns ? { columns: [...columns] } : undefined);
    const table = A.tableFromIPC(wasmTable.intoIPCStream());
    return table.numRows === 0 ? emptyTable(table.schema) : table;
  } catch (cause) {
    throw new AvaError("DATA_CORRUPT", `data file ${path} is not readable Parquet: ${String(cause)}`, {
      cause,
    });
  }
}
