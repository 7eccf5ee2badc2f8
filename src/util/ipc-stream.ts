// A table's Arrow IPC stream, written with its two flatbuffer messages cached: an inlined append's payload
// (table/inline-data.ts) and the stream a small data file goes through on its way into parquet-wasm
// (parquet/parquet.ts). apache-arrow's writer builds and flatbuffer-encodes a schema message and a record
// batch message for every stream: most of encoding a 10-row append, and more for a schema whose fields carry
// metadata (the Parquet field ids of a table with Iceberg metadata). A table's schema is one object for its
// declaration's life, so its message is kept per schema (weakly). A record batch message holds only numbers
// — the row count, each column's length and null count, each buffer's offset and length, the body's length
// — so appends of the same shape (telemetry's usual case) share one, kept under those numbers. The bytes
// are exactly tableToIPC(table, "stream")'s.
import * as A from "apache-arrow";
import { concatBytes } from "./bytes.js";
import { flatLayout } from "./ipc-flat-layout.js";

type ViewInput = Parameters<typeof A.util.toUint8Array>[0];
type Assembled = ReturnType<A.RecordBatchStreamWriter["_assembleRecordBatch"]>;

/** Schema -> its encoded schema message (continuation marker, length, flatbuffer, padding). */
const schemaMessages = new WeakMap<A.Schema, Uint8Array>();
/** The numbers of a record batch message -> its encoded bytes; cleared when full (shapes seldom vary). */
const batchMessages = new Map<string, Uint8Array>();
const MAX_BATCH_MESSAGES = 256;
/** Schemas with a dictionary column: their batches bring dictionary messages, written by apache-arrow. */
const withDictionaries = new WeakMap<A.Schema, boolean>();

function hasDictionary(schema: A.Schema): boolean {
  let has = withDictionaries.get(schema);
  if (has === undefined) {
    has = schema.dictionaries.size > 0;
    withDictionaries.set(schema, has);
  }
  return has;
}

/** Everything a record batch message encodes. */
function messageKey(numRows: number, a: Assembled): string {
  let key = `${numRows};${a.byteLength};`;
  for (const n of a.nodes) key += `${n.length},${n.nullCount};`;
  for (const r of a.bufferRegions) key += `${r.offset},${r.length};`;
  return `${key}${a.variadicBufferCounts.join(",")}`;
}

class CachedMessageStreamWriter extends A.RecordBatchStreamWriter {
  /** While a message to be cached is written: the chunks it is made of. */
  #capture: Uint8Array[] | undefined;
  /** While apache-arrow writes a record batch: the key its message is to be kept under. */
  #batchKey: string | undefined;

  #captured(write: () => unknown): Uint8Array {
    this.#capture = [];
    try {
      write();
      return concatBytes(this.#capture);
    } finally {
      this.#capture = undefined;
    }
  }

  protected override _writeSchema(schema: A.Schema): this {
    const cached = schemaMessages.get(schema);
    if (cached) return this._write(cached);
    schemaMessages.set(
      schema,
      this.#captured(() => super._writeSchema(schema)),
    );
    return this;
  }

  protected override _writeRecordBatch(batch: A.RecordBatch): this {
    if (this._compression || batch.metadata.size > 0 || hasDictionary(batch.schema))
      return super._writeRecordBatch(batch);
    const assembled = this._assembleRecordBatch(batch);
    const key = messageKey(batch.numRows, assembled);
    const cached = batchMessages.get(key);
    if (cached) return this._write(cached)._writeBodyBuffers(assembled.buffers);
    // A new shape: apache-arrow writes it (assembling the batch again), and its message is kept.
    this.#batchKey = key;
    try {
      return super._writeRecordBatch(batch);
    } finally {
      this.#batchKey = undefined;
    }
  }

  protected override _writeMessage<T extends A.MessageHeader>(
    message: A.Message<T>,
    alignment?: number,
  ): this {
    const key = this.#batchKey;
    if (key === undefined || message.headerType !== A.MessageHeader.RecordBatch)
      return super._writeMessage(message, alignment);
    if (batchMessages.size >= MAX_BATCH_MESSAGES) batchMessages.clear();
    batchMessages.set(
      key,
      this.#captured(() => super._writeMessage(message, alignment)),
    );
    return this;
  }

  protected override _write(chunk: ViewInput): this {
    if (this.#capture) this.#capture.push((A.util.toUint8Array(chunk) as Uint8Array).slice());
    return super._write(chunk);
  }
}

/** Assembles record batches (their body buffers and message numbers) for the direct path. */
class Assembler extends CachedMessageStreamWriter {
  assemble(batch: A.RecordBatch): Assembled {
    return this._assembleRecordBatch(batch);
  }
}
const assembler = new Assembler();

/** The end-of-stream marker: a continuation marker and a zero length. */
const EOS = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);

/**
 * The stream of a one-batch table whose messages are both cached, laid out straight into one buffer —
 * schema message, record batch message, body buffers each padded to 8 bytes (as apache-arrow writes
 * them), end of stream — without the writer's byte queue and chunk copies. Undefined when not cached.
 */
function directStream(table: A.Table): Uint8Array | undefined {
  const schemaMessage = schemaMessages.get(table.schema);
  const batch = table.batches[0];
  if (!schemaMessage || table.batches.length !== 1 || !batch) return undefined;
  // table.schema, not batch.schema: apache-arrow's Table may hand its batches schema objects of their own,
  // which would miss the cache every time.
  if (batch.metadata.size > 0 || hasDictionary(table.schema)) return undefined;
  // Flat columns are laid out here; others as apache-arrow assembles them (a walk of visitors).
  const layout = flatLayout(batch);
  const assembled = layout ? undefined : assembler.assemble(batch);
  const buffers: readonly ArrayBufferView[] = layout?.buffers ?? assembled!.buffers;
  const batchMessage = batchMessages.get(layout?.key ?? messageKey(batch.numRows, assembled!));
  if (!batchMessage) return undefined;
  let body = 0;
  for (const b of buffers) body += (b.byteLength + 7) & ~7;
  if (assembled && body !== assembled.byteLength) return undefined; // not the layout the message describes
  const out = new Uint8Array(schemaMessage.length + batchMessage.length + body + EOS.length);
  out.set(schemaMessage, 0);
  let at = schemaMessage.length;
  out.set(batchMessage, at);
  at += batchMessage.length;
  for (const b of buffers) {
    // A byte view of the buffer (set() between typed arrays of other kinds converts element by element).
    out.set(b instanceof Uint8Array ? b : new Uint8Array(b.buffer, b.byteOffset, b.byteLength), at);
    at += (b.byteLength + 7) & ~7; // the padding stays zero
  }
  out.set(EOS, at);
  return out;
}

/** `A.tableToIPC(table, "stream")`, byte for byte, with its messages encoded once per schema and shape. */
export function tableToIpcStream(table: A.Table): Uint8Array {
  return directStream(table) ?? new CachedMessageStreamWriter().writeAll(table).toUint8Array(true);
}
