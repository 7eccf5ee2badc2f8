// The inline payload's Arrow IPC stream, written with the schema message cached per schema. apache-arrow's
// writer builds and flatbuffer-encodes the schema message on every stream, which is ~40% of encoding a
// 10-row append; a table's schema is one object for its declaration's life, so its message bytes are kept
// (weakly) and copied in. The bytes are exactly tableToIPC(table, "stream")'s: the payload format is unchanged.
import * as A from "apache-arrow";

/** Schema -> its encoded schema message (continuation marker, length, flatbuffer, padding). */
const schemaMessages = new WeakMap<A.Schema, Uint8Array>();

class CachedSchemaStreamWriter extends A.RecordBatchStreamWriter {
  /** While the schema message of an uncached schema is written: the chunks it is made of. */
  #capture: Uint8Array[] | undefined;

  protected override _writeSchema(schema: A.Schema): this {
    const cached = schemaMessages.get(schema);
    if (cached) return this._write(cached);
    this.#capture = [];
    try {
      super._writeSchema(schema);
      schemaMessages.set(schema, concat(this.#capture));
    } finally {
      this.#capture = undefined;
    }
    return this;
  }

  protected override _write(chunk: Parameters<typeof A.util.toUint8Array>[0]): this {
    if (this.#capture) this.#capture.push((A.util.toUint8Array(chunk) as Uint8Array).slice());
    return super._write(chunk);
  }
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** `A.tableToIPC(table, "stream")`, byte for byte, with the schema message encoded once per schema. */
export function tableToIpcStream(table: A.Table): Uint8Array {
  return new CachedSchemaStreamWriter().writeAll(table).toUint8Array(true);
}
