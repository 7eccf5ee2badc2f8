// The bytes each column takes in a Parquet file, read from its footer: Iceberg manifests carry them as
// column_sizes, which engines use to plan how much a scan of some columns reads. The footer is Thrift
// compact (FileMetaData); only row_groups[].columns[].meta_data's path_in_schema and total_compressed_size
// are read, everything else is skipped by its wire type. The writer (parquet-wasm or flat-writer.ts) knows
// these sizes but does not hand them out, and reading the few KB of footer back costs a few microseconds.
import { AvaError } from "../errors.js";
import { WIRE } from "./thrift-compact.js";

const MAGIC = 0x31524150; // "PAR1", little-endian

const decoder = new TextDecoder();

class Reader {
  at: number;
  constructor(
    readonly bytes: Uint8Array,
    start: number,
    readonly end: number,
  ) {
    this.at = start;
  }

  byte(): number {
    if (this.at >= this.end) throw corrupt("the footer ends early");
    return this.bytes[this.at++]!;
  }

  /** An unsigned varint, exact up to 2^53 (sizes and counts). */
  varint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const b = this.byte();
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 128;
      if (scale > 2 ** 63) throw corrupt("a varint runs past 10 bytes");
    }
  }

  zigzag(): number {
    const v = this.varint();
    return v % 2 === 0 ? v / 2 : -(v + 1) / 2;
  }

  /** A column name: most are short ASCII, read without a decoder call. */
  string(): string {
    const n = this.varint();
    const end = this.at + n;
    if (end > this.end) throw corrupt("a string runs past the footer");
    let s = "";
    for (let i = this.at; i < end; i++) {
      const c = this.bytes[i]!;
      if (c >= 0x80 || n > 64) {
        s = decoder.decode(this.bytes.subarray(this.at, end));
        break;
      }
      s += String.fromCharCode(c);
    }
    this.at = end;
    return s;
  }

  /** The id of the field whose header fieldType() read last. */
  id = 0;
  /** The element type of the list whose header listSize() read last. */
  element = 0;

  /**
   * The next field of a struct whose previous field had id `last`: its wire type, with its id in `id`; 0 at
   * the struct's end. Fields are walked by loops over this rather than a callback per struct: the footer
   * of a small file has a few hundred fields, and a closure for each struct was most of reading it.
   */
  fieldType(last: number): number {
    const head = this.byte();
    if (head === 0) return 0;
    const delta = head >> 4;
    this.id = delta === 0 ? this.zigzag() : last + delta;
    return head & 0x0f;
  }

  /** A list's size, with its element type in `element`. */
  listSize(): number {
    const head = this.byte();
    this.element = head & 0x0f;
    return head >> 4 === 15 ? this.varint() : head >> 4;
  }

  skipStruct(): void {
    let id = 0;
    for (let type = this.fieldType(0); type !== 0; type = this.fieldType(id)) {
      id = this.id;
      this.skip(type);
    }
  }

  skip(type: number): void {
    switch (type) {
      case WIRE.TRUE:
      case WIRE.FALSE:
        return;
      case WIRE.BYTE:
        this.at += 1;
        return;
      case WIRE.I16:
      case WIRE.I32:
      case WIRE.I64:
        this.varint();
        return;
      case WIRE.DOUBLE:
        this.at += 8;
        return;
      case WIRE.BINARY: {
        const n = this.varint(); // read before `at` is: `this.at += this.varint()` would lose its bytes
        this.at += n;
        return;
      }
      case WIRE.LIST:
      case WIRE.SET: {
        // A list's booleans are a byte each (in a struct, the field's type is its value).
        const size = this.listSize();
        const element = this.element;
        for (let i = 0; i < size; i++) {
          if (element === WIRE.TRUE || element === WIRE.FALSE) this.byte();
          else this.skip(element);
        }
        return;
      }
      case WIRE.MAP: {
        const size = this.varint();
        if (size === 0) return;
        const kinds = this.byte();
        for (let i = 0; i < size; i++) {
          this.skip(kinds >> 4);
          this.skip(kinds & 0x0f);
        }
        return;
      }
      case WIRE.STRUCT:
        this.skipStruct();
        return;
      default:
        throw corrupt(`unknown Thrift type ${type}`);
    }
  }
}

function corrupt(why: string): AvaError {
  return new AvaError("DATA_CORRUPT", `Parquet footer: ${why}`);
}

/**
 * Bytes per top-level column: the compressed size of its column chunks (page headers included) summed
 * over the row groups, as Iceberg's column_sizes counts them; a nested column's leaves are summed under its
 * name. DATA_CORRUPT when `file` is not a whole Parquet file.
 */
export function columnSizes(file: Uint8Array): Map<string, number> {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  if (file.length < 12 || view.getUint32(file.length - 4, true) !== MAGIC)
    throw corrupt("no PAR1 at the end of the file");
  const length = view.getUint32(file.length - 8, true);
  const start = file.length - 8 - length;
  if (start < 4) throw corrupt(`a ${length}-byte footer does not fit a ${file.length}-byte file`);
  const r = new Reader(file, start, file.length - 8);
  const sizes = new Map<string, number>();
  // FileMetaData: row_groups (4) is a list of RowGroup.
  oneField(r, 4, WIRE.LIST, rowGroups, sizes);
  return sizes;
}

type Read = (r: Reader, sizes: Map<string, number>) => void;

/** Reads a struct whose field `want` (of wire type `wireType`) goes to `read`; its other fields are skipped. */
function oneField(r: Reader, want: number, wireType: number, read: Read, sizes: Map<string, number>): void {
  let id = 0;
  for (let type = r.fieldType(0); type !== 0; type = r.fieldType(id)) {
    id = r.id;
    if (id === want && type === wireType) read(r, sizes);
    else r.skip(type);
  }
}

/** Each element of a list of structs to `read` (which reads it whole); other elements are skipped. */
function eachStruct(r: Reader, read: Read, sizes: Map<string, number>): void {
  const size = r.listSize();
  const element = r.element;
  for (let i = 0; i < size; i++) {
    if (element === WIRE.STRUCT) read(r, sizes);
    else r.skip(element);
  }
}

const rowGroups: Read = (r, sizes) => eachStruct(r, rowGroup, sizes);
/** RowGroup: columns (1) is a list of ColumnChunk. */
const rowGroup: Read = (r, sizes) => oneField(r, 1, WIRE.LIST, columnChunks, sizes);
const columnChunks: Read = (r, sizes) => eachStruct(r, columnChunk, sizes);
/** ColumnChunk: meta_data (3) is a ColumnMetaData. */
const columnChunk: Read = (r, sizes) => oneField(r, 3, WIRE.STRUCT, columnMeta, sizes);

/** ColumnMetaData: path_in_schema (3), whose first name is the top-level column's; total_compressed_size (7). */
function columnMeta(r: Reader, sizes: Map<string, number>): void {
  let column: string | undefined;
  let size = 0;
  let id = 0;
  for (let type = r.fieldType(0); type !== 0; type = r.fieldType(id)) {
    id = r.id;
    if (id === 3 && type === WIRE.LIST) {
      const n = r.listSize();
      const element = r.element;
      for (let i = 0; i < n; i++) {
        if (i === 0 && element === WIRE.BINARY) column = r.string();
        else r.skip(element);
      }
    } else if (id === 7 && type === WIRE.I64) size = r.zigzag();
    else r.skip(type);
  }
  if (column !== undefined) sizes.set(column, (sizes.get(column) ?? 0) + size);
}
