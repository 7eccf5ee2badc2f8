// Arrow columns built straight from buffers, for values that repeat: provenance columns (one value for a
// whole append) and the long table of an Avro stream (one channel and tag set per record).
import * as A from "apache-arrow";

const encoder = new TextEncoder();

/** A Utf8 column holding `texts[i]` `counts[i]` times in a row, each text encoded once. */
export function repeatedUtf8(texts: readonly string[], counts: readonly number[]): A.Data {
  const encoded = texts.map((t) => encoder.encode(t));
  const rows = counts.reduce((a, b) => a + b, 0);
  const bytes = new Uint8Array(encoded.reduce((n, e, r) => n + e.length * counts[r]!, 0));
  const offsets = new Int32Array(rows + 1);
  let row = 0;
  let at = 0;
  // A plain loop with locals: as a forEach callback, `row` and `at` lived in a closure context that the
  // offsets loop re-read on every store (a tenth of an Avro ingest).
  for (let r = 0; r < encoded.length; r++) {
    const e = encoded[r]!;
    const n = counts[r]!;
    const width = e.length;
    const total = width * n;
    // One copy of the text, then doubling copies of what is written: log2(n) calls, not n.
    if (n > 0) bytes.set(e, at);
    for (let filled = width; filled < total; ) {
      const chunk = Math.min(filled, total - filled);
      bytes.copyWithin(at + filled, at, at + chunk);
      filled += chunk;
    }
    for (let k = 1; k <= n; k++) offsets[row + k] = at + k * width;
    row += n;
    at += total;
  }
  return A.makeData({ type: new A.Utf8(), length: rows, nullCount: 0, valueOffsets: offsets, data: bytes });
}

/**
 * Zero bytes shared by every all-null column: their offsets and validity are all zeros, and Arrow data is
 * never written after it is made, so one buffer serves them all (allocating one per column per batch was
 * a tenth of an Avro ingest).
 */
let zeros = new ArrayBuffer(0);
function zeroBytes(n: number): ArrayBuffer {
  if (zeros.byteLength < n) zeros = new ArrayBuffer(Math.max(n, zeros.byteLength * 2));
  return zeros;
}

/**
 * A column of `length` nulls. Readers (parquet-wasm among them) expect the offsets buffer of a Utf8 or List
 * column even when every value is null.
 */
export function allNull(type: A.Utf8 | A.List | A.Float64 | A.Int64, length: number): A.Data {
  const shared = zeroBytes(8 * (length + 1));
  const nullBitmap = new Uint8Array(shared, 0, Math.ceil(length / 8));
  if (type instanceof A.Float64) {
    return A.makeData({
      type,
      length,
      nullCount: length,
      nullBitmap,
      data: new Float64Array(shared, 0, length),
    });
  }
  if (type instanceof A.Int64) {
    return A.makeData({
      type,
      length,
      nullCount: length,
      nullBitmap,
      data: new BigInt64Array(shared, 0, length),
    });
  }
  const valueOffsets = new Int32Array(shared, 0, length + 1);
  if (A.DataType.isList(type)) {
    const child = A.makeData({ type: type.children[0]!.type, length: 0, nullCount: 0 });
    return A.makeData({ type, length, nullCount: length, nullBitmap, valueOffsets, child });
  }
  return A.makeData({ type, length, nullCount: length, nullBitmap, valueOffsets, data: new Uint8Array(0) });
}
