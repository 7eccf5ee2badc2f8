// Arrow columns built straight from buffers, for values that repeat: a provenance column (one value for a
// whole append), columns of nulls (the value columns an Avro stream's long table leaves empty), and the
// few distinct strings of a dictionary column.
import * as A from "apache-arrow";

const encoder = new TextEncoder();

/** A Utf8 column of `count` copies of `text`, the text encoded once. */
export function repeatedUtf8(text: string, count: number): A.Data {
  const e = encoder.encode(text);
  const width = e.length;
  const bytes = new Uint8Array(width * count);
  // One copy of the text, then doubling copies of what is written: log2(count) calls, not count.
  if (count > 0) bytes.set(e);
  for (let filled = width; filled < bytes.length; ) {
    const chunk = Math.min(filled, bytes.length - filled);
    bytes.copyWithin(filled, 0, chunk);
    filled += chunk;
  }
  const offsets = new Int32Array(count + 1);
  for (let k = 1; k <= count; k++) offsets[k] = k * width;
  return A.makeData({ type: new A.Utf8(), length: count, nullCount: 0, valueOffsets: offsets, data: bytes });
}

/**
 * A Utf8 column of `values` (no nulls): what `A.vectorFromArray(values, new A.Utf8())` makes, without its
 * builder — which compiled a validity function on every call: a twentieth of an Avro ingest for the two
 * small dictionaries of each record batch.
 */
export function utf8Column(values: readonly string[]): A.Data<A.Utf8> {
  const encoded = values.map((v) => encoder.encode(v));
  const offsets = new Int32Array(values.length + 1);
  for (let i = 0; i < encoded.length; i++) offsets[i + 1] = offsets[i]! + encoded[i]!.length;
  const bytes = new Uint8Array(offsets[values.length]!);
  for (let i = 0; i < encoded.length; i++) bytes.set(encoded[i]!, offsets[i]!);
  return A.makeData({
    type: new A.Utf8(),
    length: values.length,
    nullCount: 0,
    valueOffsets: offsets,
    data: bytes,
  });
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
