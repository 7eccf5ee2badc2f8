// The Thrift compact protocol, write side only: what Parquet's page headers and footer are made of. Structs
// are written field by field in id order; the writer keeps the last field id of each open struct, since
// field headers carry the id as a delta from it.
import { ByteSink } from "./byte-sink.js";

/** The compact protocol's wire types (also read by footer-sizes.ts). */
export const WIRE = {
  TRUE: 1,
  FALSE: 2,
  BYTE: 3,
  I16: 4,
  I32: 5,
  I64: 6,
  DOUBLE: 7,
  BINARY: 8,
  LIST: 9,
  SET: 10,
  MAP: 11,
  STRUCT: 12,
} as const;
const T = WIRE;
export type ListType = "i32" | "binary" | "struct";
const LIST_TYPE: Record<ListType, number> = { i32: T.I32, binary: T.BINARY, struct: T.STRUCT };

export class ThriftWriter {
  readonly out: ByteSink;
  #last: number[] = [0];

  constructor(out = new ByteSink()) {
    this.out = out;
  }

  #field(id: number, type: number): void {
    const delta = id - this.#last[this.#last.length - 1]!;
    if (delta > 0 && delta <= 15) this.out.byte((delta << 4) | type);
    else {
      this.out.byte(type);
      this.out.varint(zigzag(id));
    }
    this.#last[this.#last.length - 1] = id;
  }

  i32(id: number, v: number): this {
    this.#field(id, T.I32);
    this.out.varint(zigzag(v));
    return this;
  }

  /** 64-bit fields here are file offsets and counts: safe integers, written without BigInt. */
  i64(id: number, v: number): this {
    this.#field(id, T.I64);
    this.out.varint(zigzag(v));
    return this;
  }

  bool(id: number, v: boolean): this {
    this.#field(id, v ? T.TRUE : T.FALSE);
    return this;
  }

  string(id: number, v: string): this {
    this.#field(id, T.BINARY);
    this.#binary(v);
    return this;
  }

  /** A nested struct: `body` writes its fields. */
  struct(id: number, body: (w: this) => void): this {
    this.#field(id, T.STRUCT);
    this.#structBody(body);
    return this;
  }

  list<V>(id: number, type: ListType, items: readonly V[], each: (w: this, item: V) => void): this {
    this.#field(id, T.LIST);
    const n = items.length;
    if (n < 15) this.out.byte((n << 4) | LIST_TYPE[type]);
    else {
      this.out.byte(0xf0 | LIST_TYPE[type]);
      this.out.varint(n);
    }
    for (const item of items) each(this, item);
    return this;
  }

  /** A list element of type i32 / binary / struct. */
  elementI32(v: number): void {
    this.out.varint(zigzag(v));
  }
  elementString(v: string): void {
    this.#binary(v);
  }
  elementStruct(body: (w: this) => void): void {
    this.#structBody(body);
  }

  /** The top-level struct this writer holds ends: its stop byte. */
  end(): Uint8Array {
    this.out.byte(0);
    return this.out.bytes();
  }

  #structBody(body: (w: this) => void): void {
    this.#last.push(0);
    body(this);
    this.out.byte(0);
    this.#last.pop();
  }

  #binary(v: string): void {
    const bytes = encoder.encode(v);
    this.out.varint(bytes.length);
    this.out.append(bytes);
  }
}

const encoder = new TextEncoder();

/** Zigzag for safe integers (offsets pass 2^31, so no 32-bit shifts). */
function zigzag(v: number): number {
  return v >= 0 ? v * 2 : -v * 2 - 1;
}
