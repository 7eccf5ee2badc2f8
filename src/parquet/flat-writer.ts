// A Parquet writer in plain JS for flat tables of the few column types telemetry ingest writes (doubles,
// 64-bit integers, timestamps, strings, dictionary strings, and list columns that are entirely null).
// Through parquet-wasm a 250,000-point batch cost more than its Avro decoding three times over: an Arrow IPC
// copy into wasm memory, its decoding there, level and dictionary building. Here the Arrow buffers already
// are the pages: doubles are copied as they are (PLAIN), integers and timestamps without nulls are written as
// differences (DELTA_BINARY_PACKED: a timestamp column shrinks from 8 bytes a row to a few bytes a block), a
// column of one value as a one-entry dictionary, dictionary indices are run-length encoded (a channel's
// points are consecutive), and a null column is one run of levels. Pages are uncompressed: telemetry doubles
// do not compress (a 250,000-point batch's file: 1.95 MiB here, 1.83 MiB with zstd), and compaction rewrites
// small files with zstd through parquet-wasm anyway. The Arrow schema travels in the footer (ARROW:schema),
// so readers get back the exact types — dictionaries, time zones, field metadata.
import * as A from "apache-arrow";
import { AvaError } from "../errors.js";
import { ByteSink } from "./byte-sink.js";
import { deltaBinaryPacked } from "./delta-binary-packed.js";
import { ThriftWriter } from "./thrift-compact.js";
import { getOrCreate } from "../util/get-or-create.js";

const PHYSICAL = { INT64: 2, DOUBLE: 5, BYTE_ARRAY: 6 } as const;
const REPETITION = { REQUIRED: 0, OPTIONAL: 1, REPEATED: 2 } as const;
const ENCODING = { PLAIN: 0, RLE: 3, DELTA_BINARY_PACKED: 5, RLE_DICTIONARY: 8 } as const;
const PAGE = { DATA: 0, DICTIONARY: 2 } as const;
const FIELD_ID = "PARQUET:field_id";
const CONVERTED = { UTF8: 0, LIST: 3, TIMESTAMP_MILLIS: 9, TIMESTAMP_MICROS: 10 } as const;

type Kind = "double" | "int64" | "utf8" | "dict" | "nullList";

/** How a column is written, or undefined when this writer does not take its type. */
function kindOf(type: A.DataType): Kind | undefined {
  if (A.DataType.isFloat(type) && type.precision === A.Precision.DOUBLE) return "double";
  if (A.DataType.isInt(type) && type.bitWidth === 64 && type.isSigned) return "int64";
  if (A.DataType.isTimestamp(type) && type.unit !== A.TimeUnit.SECOND) return "int64";
  if (A.DataType.isUtf8(type)) return "utf8";
  if (A.DataType.isDictionary(type) && A.DataType.isUtf8(type.dictionary) && type.indices.bitWidth === 32)
    return "dict";
  if (A.DataType.isList(type) && type.children[0] && kindOf(type.children[0].type) !== undefined) {
    const child = kindOf(type.children[0].type);
    if (child === "double" || child === "utf8") return "nullList";
  }
  return undefined;
}

/**
 * Can `table` be written here? Every column of a taken type, unsliced, nulls only where the field is
 * nullable, and list columns nullable and entirely null; otherwise parquet-wasm writes it.
 */
export function isFlatWritable(table: A.Table): boolean {
  const fields = table.schema.fields;
  const kinds = fields.map((f) => kindOf(f.type));
  if (kinds.includes(undefined)) return false;
  for (const batch of table.batches)
    for (let c = 0; c < kinds.length; c++) {
      const data = batch.data.children[c]!;
      const nullable = fields[c]!.nullable;
      if (data.offset !== 0 || (!nullable && data.nullCount > 0)) return false;
      if (kinds[c] === "nullList" && !(nullable && data.nullCount === data.length)) return false;
      const dictionary = data.dictionary;
      if (kinds[c] === "dict" && (dictionary?.nullCount !== 0 || dictionary.data.length !== 1)) return false;
    }
  return true;
}

interface ChunkMeta {
  path: string[];
  physical: number;
  encodings: number[];
  numValues: number;
  size: number;
  dataPageOffset: number;
  dictionaryPageOffset?: number;
}

/**
 * The file; the caller has checked `isFlatWritable(table)`. One row group per record batch. `buffer(n)` may
 * supply the buffer to write it in (at least `n` bytes, the expected size; it is grown if the file needs
 * more): the result is a view of it, or of its grown replacement.
 */
export function writeFlatParquet(
  table: A.Table,
  createdBy: string,
  buffer: (n: number) => Uint8Array = (n) => new Uint8Array(n),
): Uint8Array {
  const fields = table.schema.fields;
  const kinds = fields.map((f) => kindOf(f.type)!);
  const out = new ByteSink(buffer(sizeHint(table)));
  out.append(MAGIC);
  const rowGroups: { rows: number; chunks: ChunkMeta[] }[] = [];
  for (const batch of table.batches) {
    if (batch.numRows === 0) continue;
    const chunks = fields.map((field, c) => writeChunk(out, field, kinds[c]!, batch.data.children[c]!));
    rowGroups.push({ rows: batch.numRows, chunks });
  }
  const footer = fileMetaData(table, kinds, rowGroups, createdBy);
  out.append(footer);
  out.uint32(footer.length);
  out.append(MAGIC);
  return out.bytes();
}

/**
 * About the file's size: the value buffers, string lengths, dictionaries and room for headers (runs of
 * levels and indices are small). The sink rarely grows and re-copies, and is not much too big either: every
 * byte of it is zeroed on allocation.
 */
function sizeHint(table: A.Table): number {
  let n = 1 << 12;
  for (const batch of table.batches)
    for (const data of batch.data.children) {
      n += 256;
      if (A.DataType.isDictionary(data.type)) {
        const dictionary = data.dictionary!.data[0]!;
        n += (dictionary.values?.byteLength ?? 0) + 4 * dictionary.length;
      } else {
        n += (data.values as Uint8Array | undefined)?.byteLength ?? 0;
        if (A.DataType.isUtf8(data.type)) n += 4 * (data.length - data.nullCount);
      }
    }
  return n;
}

const MAGIC = new TextEncoder().encode("PAR1");

function writeChunk(out: ByteSink, field: A.Field, kind: Kind, data: A.Data): ChunkMeta {
  const start = out.length;
  const n = data.length;
  const optional = field.nullable;
  const levels = new ByteSink(16);
  let dictionaryPageOffset: number | undefined;
  let values: Uint8Array;
  let encoding: number = ENCODING.PLAIN;
  if (kind === "nullList") {
    // Each null list is one level pair: repetition 0 (a new row), definition 0 (the list itself is null).
    lengthPrefixed(levels, (s) => rleRun(s, n, 0, 1));
    lengthPrefixed(levels, (s) => rleRun(s, n, 0, 1));
    values = new Uint8Array(0);
  } else {
    if (optional) lengthPrefixed(levels, (s) => definitionLevels(s, data));
    if (kind === "dict") {
      const dictionary = data.dictionary!;
      dictionaryPageOffset = dictionaryPage(
        out,
        plainStrings(dictionary.data[0]! as A.Data<A.Utf8>),
        dictionary.length,
      );
      values = dictionaryIndices(data, dictionary.length);
      encoding = ENCODING.RLE_DICTIONARY;
    } else if (kind === "utf8") values = plainStrings(data as A.Data<A.Utf8>);
    else if (isConstant8(data)) {
      // One value on every row (a provenance time, a constant setting): a dictionary of that value and one
      // run of index 0, instead of 8 bytes a row — the ingest endpoint's `_ava_updated_at` was a third of
      // each file.
      dictionaryPageOffset = dictionaryPage(out, plainFixed(data, 8).subarray(0, 8), 1);
      const indices = new ByteSink(16);
      indices.byte(1); // bit width
      rleRun(indices, n, 0, 1);
      values = indices.bytes();
      encoding = ENCODING.RLE_DICTIONARY;
    } else {
      // Integers and timestamps without nulls as differences (a timestamp column: a few bytes a block of
      // 128 rows instead of 8 bytes a row); doubles, and columns with nulls, PLAIN.
      if (kind === "int64" && data.nullCount === 0) {
        values = deltaBinaryPacked((data.values as BigInt64Array).subarray(0, n));
        encoding = ENCODING.DELTA_BINARY_PACKED;
      } else values = plainFixed(data, 8);
    }
  }
  const dataPageOffset = out.length;
  const size = levels.length + values.length;
  pageHeader(out, PAGE.DATA, size, (w) =>
    w.struct(5, (d) => d.i32(1, n).i32(2, encoding).i32(3, ENCODING.RLE).i32(4, ENCODING.RLE)),
  );
  out.append(levels.bytes());
  out.append(values);
  const leaf = kind === "nullList" ? field.type.children[0]! : field;
  return {
    path: kind === "nullList" ? [field.name, "list", leaf.name] : [field.name],
    physical: physicalOf(kindOf(leaf.type)!),
    encodings:
      encoding === ENCODING.RLE_DICTIONARY
        ? [ENCODING.PLAIN, ENCODING.RLE, ENCODING.RLE_DICTIONARY]
        : [encoding, ENCODING.RLE],
    numValues: n,
    size: out.length - start,
    dataPageOffset,
    ...(dictionaryPageOffset !== undefined && { dictionaryPageOffset }),
  };
}

/** Writes a PLAIN dictionary page of `count` values; returns its offset for the column chunk's metadata. */
function dictionaryPage(out: ByteSink, body: Uint8Array, count: number): number {
  const offset = out.length;
  pageHeader(out, PAGE.DICTIONARY, body.length, (w) =>
    w.struct(7, (d) => d.i32(1, count).i32(2, ENCODING.PLAIN)),
  );
  out.append(body);
  return offset;
}

function physicalOf(kind: Kind): number {
  if (kind === "double") return PHYSICAL.DOUBLE;
  if (kind === "int64") return PHYSICAL.INT64;
  return PHYSICAL.BYTE_ARRAY;
}

function pageHeader(
  out: ByteSink,
  type: number,
  size: number,
  body: (w: ThriftWriter) => ThriftWriter,
): void {
  const w = new ThriftWriter(out);
  w.i32(1, type).i32(2, size).i32(3, size);
  body(w);
  w.out.byte(0);
}

/** A v1 page's levels: their byte length (4 bytes, little-endian), then the levels. */
function lengthPrefixed(out: ByteSink, write: (s: ByteSink) => void): void {
  const s = new ByteSink(16);
  write(s);
  out.uint32(s.length);
  out.append(s.bytes());
}

/** One run of the RLE/bit-packed hybrid: `count` times `value`, in ceil(bitWidth / 8) bytes. */
function rleRun(out: ByteSink, count: number, value: number, bitWidth: number): void {
  out.varint(count * 2);
  for (let b = 0; b < Math.ceil(bitWidth / 8); b++) out.byte((value >>> (8 * b)) & 0xff);
}

/** Definition levels of an optional flat column (1 = a value, 0 = null), as runs of the validity bits. */
function definitionLevels(out: ByteSink, data: A.Data): void {
  const n = data.length;
  const nulls = data.nullCount;
  if (nulls === 0 || nulls === n) {
    rleRun(out, n, nulls === 0 ? 1 : 0, 1);
    return;
  }
  const bits = data.nullBitmap!;
  let run = 0;
  let current = bits[0]! & 1;
  for (let i = 0; i < n; i++) {
    const v = (bits[i >> 3]! >> (i & 7)) & 1;
    if (v === current) run++;
    else {
      rleRun(out, run, current, 1);
      current = v;
      run = 1;
    }
  }
  rleRun(out, run, current, 1);
}

/**
 * Which rows hold a value: undefined when all do. (Arrow's `nullCount` getter costs a type check a call:
 * read once per column, not per row.)
 */
function validity(data: A.Data): Uint8Array | undefined {
  return data.nullCount === 0 ? undefined : data.nullBitmap;
}

function isValid(bits: Uint8Array | undefined, i: number): boolean {
  return bits === undefined || ((bits[i >> 3]! >> (i & 7)) & 1) === 1;
}

/**
 * True when a column of 8-byte values (no nulls, at least two rows) holds one value throughout, compared
 * bit for bit. A column that varies answers at its first difference: usually its second row.
 */
function isConstant8(data: A.Data): boolean {
  const n = data.length;
  if (n < 2 || data.nullCount !== 0) return false;
  const values = data.values as Float64Array | BigInt64Array;
  const words = new Int32Array(values.buffer, values.byteOffset, 2 * n);
  const lo = words[0]!;
  const hi = words[1]!;
  for (let i = 2; i < 2 * n; i += 2) if (words[i] !== lo || words[i + 1] !== hi) return false;
  return true;
}

/** PLAIN 8-byte values of the rows that are not null. */
function plainFixed(data: A.Data, width: number): Uint8Array {
  const values = data.values as Float64Array | BigInt64Array;
  const bytes = new Uint8Array(values.buffer, values.byteOffset, data.length * width);
  const nulls = data.nullCount;
  if (nulls === 0) return bytes;
  const out = new Uint8Array((data.length - nulls) * width);
  if (nulls === data.length) return out;
  const bits = data.nullBitmap;
  let o = 0;
  for (let i = 0; i < data.length; i++)
    if (isValid(bits, i)) {
      out.set(bytes.subarray(i * width, (i + 1) * width), o);
      o += width;
    }
  return out;
}

/** PLAIN byte arrays (a 4-byte length, then the UTF-8 bytes) of the rows that are not null. */
function plainStrings(data: A.Data<A.Utf8>): Uint8Array {
  if (data.nullCount === data.length) return new Uint8Array(0);
  const offsets = data.valueOffsets as Int32Array;
  const bytes = data.values as Uint8Array;
  const bits = validity(data);
  const out = new ByteSink(offsets[data.length]! - offsets[0]! + 4 * data.length + 16);
  for (let i = 0; i < data.length; i++) {
    if (!isValid(bits, i)) continue;
    out.uint32(offsets[i + 1]! - offsets[i]!);
    out.append(bytes.subarray(offsets[i]!, offsets[i + 1]!));
  }
  return out.bytes();
}

/** RLE_DICTIONARY data: the bit width (1 byte), then the indices of the rows that are not null, as runs. */
function dictionaryIndices(data: A.Data, dictionarySize: number): Uint8Array {
  const bitWidth = Math.max(1, Math.ceil(Math.log2(Math.max(dictionarySize, 2))));
  const indices = data.values as Int32Array;
  const out = new ByteSink(64);
  out.byte(bitWidth);
  const bits = validity(data);
  if (bits === undefined) {
    // Every row valid (a channel or tag column of the long table): runs found without a validity test a row.
    const n = data.length;
    for (let i = 0; i < n; ) {
      const v = indices[i]!;
      let end = i + 1;
      while (end < n && indices[end] === v) end++;
      rleRun(out, end - i, v, bitWidth);
      i = end;
    }
    return out.bytes();
  }
  let run = 0;
  let current = -1;
  for (let i = 0; i < data.length; i++) {
    if (!isValid(bits, i)) continue;
    const v = indices[i]!;
    if (v === current) run++;
    else {
      if (run > 0) rleRun(out, run, current, bitWidth);
      current = v;
      run = 1;
    }
  }
  if (run > 0) rleRun(out, run, current, bitWidth);
  return out.bytes();
}

function fileMetaData(
  table: A.Table,
  kinds: readonly Kind[],
  rowGroups: readonly { rows: number; chunks: ChunkMeta[] }[],
  createdBy: string,
): Uint8Array {
  const w = new ThriftWriter(new ByteSink(1024));
  const fields = table.schema.fields;
  w.i32(1, 1);
  w.list(2, "struct", schemaElements(fields, kinds), (l, element) => l.elementStruct(element));
  w.i64(3, table.numRows);
  w.list(4, "struct", rowGroups, (l, group) =>
    l.elementStruct((g) => {
      g.list(1, "struct", group.chunks, (cl, chunk) =>
        cl.elementStruct((cc) =>
          cc.i64(2, chunk.dictionaryPageOffset ?? chunk.dataPageOffset).struct(3, (m) => {
            m.i32(1, chunk.physical);
            m.list(2, "i32", chunk.encodings, (el, e) => el.elementI32(e));
            m.list(3, "binary", chunk.path, (el, p) => el.elementString(p));
            m.i32(4, 0); // UNCOMPRESSED
            m.i64(5, chunk.numValues).i64(6, chunk.size).i64(7, chunk.size).i64(9, chunk.dataPageOffset);
            if (chunk.dictionaryPageOffset !== undefined) m.i64(11, chunk.dictionaryPageOffset);
          }),
        ),
      );
      g.i64(
        2,
        group.chunks.reduce((s, c) => s + c.size, 0),
      ).i64(3, group.rows);
    }),
  );
  const metadata: [string, string][] = [["ARROW:schema", arrowSchemaBase64(table.schema)]];
  w.list(5, "struct", metadata, (l, [key, value]) =>
    l.elementStruct((kv) => kv.string(1, key).string(2, value)),
  );
  w.string(6, createdBy);
  return w.end().slice();
}

type Element = (w: ThriftWriter) => void;

/** The schema tree, depth first: the root, then each column (a list column as its three levels). */
function schemaElements(fields: readonly A.Field[], kinds: readonly Kind[]): Element[] {
  const root: Element = (w) => w.string(4, "schema").i32(5, fields.length);
  return [
    root,
    ...fields.flatMap((field, c): Element[] => {
      const repetition = field.nullable ? REPETITION.OPTIONAL : REPETITION.REQUIRED;
      if (kinds[c] !== "nullList") return [leafElement(field, kinds[c]!, repetition)];
      const item = field.type.children[0]! as A.Field;
      return [
        (w) => {
          w.i32(3, repetition).string(4, field.name).i32(5, 1).i32(6, CONVERTED.LIST);
          fieldId(w, field);
          w.struct(10, (t) => t.struct(3, () => {}));
        },
        (w) => w.i32(3, REPETITION.REPEATED).string(4, "list").i32(5, 1),
        leafElement(item, kindOf(item.type)!, item.nullable ? REPETITION.OPTIONAL : REPETITION.REQUIRED),
      ];
    }),
  ];
}

function leafElement(field: A.Field, kind: Kind, repetition: number): Element {
  const type = field.type;
  // Thrift fields go in id order: converted_type (6), field_id (9), logicalType (10).
  return (w) => {
    w.i32(1, physicalOf(kind)).i32(3, repetition).string(4, field.name);
    if (kind === "utf8" || kind === "dict") {
      w.i32(6, CONVERTED.UTF8);
      fieldId(w, field);
      w.struct(10, (t) => t.struct(1, () => {}));
    } else if (A.DataType.isTimestamp(type)) {
      const utc = type.timezone != null;
      const unit = { [A.TimeUnit.MILLISECOND]: 1, [A.TimeUnit.MICROSECOND]: 2, [A.TimeUnit.NANOSECOND]: 3 }[
        type.unit as number
      ]!;
      if (utc && unit < 3) w.i32(6, unit === 1 ? CONVERTED.TIMESTAMP_MILLIS : CONVERTED.TIMESTAMP_MICROS);
      fieldId(w, field);
      w.struct(10, (t) => t.struct(8, (ts) => ts.bool(1, utc).struct(2, (u) => u.struct(unit, () => {}))));
    } else fieldId(w, field);
  };
}

/**
 * The schema element's field_id, from the Arrow field's `PARQUET:field_id` metadata (as arrow-rs writes it):
 * Iceberg readers find a data file's columns by these ids (iceberg/parquet-field-ids.ts sets them).
 */
function fieldId(w: ThriftWriter, field: A.Field): void {
  const text = field.metadata.get(FIELD_ID);
  if (text === undefined) return;
  const id = Number(text);
  if (!Number.isInteger(id) || id < 0 || id > 0x7fffffff)
    throw new AvaError(
      "INVALID_ARGUMENT",
      `column ${JSON.stringify(field.name)}: ${FIELD_ID} metadata ${JSON.stringify(text)} is not a field id (a non-negative 32-bit integer)`,
    );
  w.i32(9, id);
}

/** ARROW:schema: the IPC schema message (continuation, length, flatbuffer), base64; once per schema. */
const schemaTexts = new WeakMap<A.Schema, string>();
function arrowSchemaBase64(schema: A.Schema): string {
  return getOrCreate(schemaTexts, schema, encodeSchema);
}

function encodeSchema(schema: A.Schema): string {
  const stream = A.tableToIPC(new A.Table(schema), "stream");
  const message = stream.subarray(0, stream.length - 8); // without the end-of-stream marker
  let text = "";
  for (let i = 0; i < message.length; i += 0x8000)
    text += String.fromCharCode(...message.subarray(i, i + 0x8000));
  return btoa(text);
}
