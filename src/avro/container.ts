// Avro object container files: "Obj\x01", a metadata map (avro.schema, avro.codec, …), a 16-byte sync
// marker, then blocks of (record count, byte size, data, sync). The reader is fed chunks and yields whole
// blocks; every count and size is checked against limits before anything is allocated.
import { AvaError } from "../errors.js";
import { ByteReader, ByteWriter } from "./binary.js";
import { concatBytes } from "../util/bytes.js";

export const MAGIC = new Uint8Array([0x4f, 0x62, 0x6a, 0x01]); // "Obj" 1

export interface ContainerHeader {
  metadata: Map<string, Uint8Array>;
  sync: Uint8Array;
  /** Bytes the header took: the offset of the first block. */
  length: number;
}

export interface RawBlock {
  count: number;
  data: Uint8Array;
  /** File offset of the block's first byte. */
  offset: number;
}

export interface ContainerLimits {
  /** Largest block (compressed or not) accepted, in bytes. Default 64 MiB. */
  maxBlockBytes?: number;
  /** Largest header (magic, metadata, sync) accepted, in bytes. Default 16 MiB. */
  maxHeaderBytes?: number;
}

export const DEFAULT_MAX_BLOCK_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MAX_HEADER_BYTES = 16 * 1024 * 1024;

export function encodeHeader(metadata: Record<string, string>, sync: Uint8Array): Uint8Array {
  const w = new ByteWriter();
  w.raw(MAGIC);
  const entries = Object.entries(metadata);
  w.long(entries.length);
  const encoder = new TextEncoder();
  for (const [k, v] of entries) {
    w.string(k);
    w.bytesField(encoder.encode(v));
  }
  w.long(0);
  w.raw(sync);
  return w.view().slice();
}

/** The longest a block head can be: two longs, 10 bytes each. */
export const BLOCK_HEAD_MAX = 20;

/** What precedes a block's data: its record count and its byte size. */
export function blockHead(count: number, size: number): Uint8Array {
  const head = new ByteWriter(BLOCK_HEAD_MAX);
  head.long(count);
  head.long(size);
  return head.view();
}

/** A block as its parts: count and size, the data itself (not copied), the sync marker. */
export function blockParts(count: number, data: Uint8Array, sync: Uint8Array): Uint8Array[] {
  return [blockHead(count, data.length), data, sync];
}

/** A whole block in one buffer, so a sink gets one write a block. */
export function encodeBlock(count: number, data: Uint8Array, sync: Uint8Array): Uint8Array {
  return concatBytes(blockParts(count, data, sync));
}

export class ContainerReader {
  /** The bytes not consumed yet: the caller's chunk itself, or a view of #own. */
  #buf: Uint8Array = new Uint8Array(0);
  /** A buffer of ours that #buf may end inside of, with room after it for the next chunks. */
  #own: Uint8Array | undefined;
  /** File offset of #buf[0]. */
  #base = 0;
  #header: ContainerHeader | undefined;
  readonly #maxBlockBytes: number;
  readonly #maxHeaderBytes: number;

  constructor({
    maxBlockBytes = DEFAULT_MAX_BLOCK_BYTES,
    maxHeaderBytes = DEFAULT_MAX_HEADER_BYTES,
  }: ContainerLimits = {}) {
    this.#maxBlockBytes = maxBlockBytes;
    this.#maxHeaderBytes = maxHeaderBytes;
  }

  get header(): ContainerHeader | undefined {
    return this.#header;
  }

  /**
   * Adds a chunk. The pending bytes live in a buffer with room to spare, grown to twice what they need
   * whenever it is full, so each byte is copied a bounded number of times however small the chunks (a
   * buffer rebuilt for every chunk made reading a large block quadratic). Views handed out stay valid:
   * bytes are only ever written past the end of what is pending, and a grown buffer is a new one.
   */
  append(chunk: Uint8Array): void {
    const pending = this.#buf;
    if (pending.length === 0) {
      this.#buf = chunk; // the usual case for whole buffers: no copy at all
      this.#own = undefined;
      return;
    }
    const own = this.#own;
    const end = pending.byteOffset + pending.length;
    if (own && pending.buffer === own.buffer && end + chunk.length <= own.byteOffset + own.length) {
      own.set(chunk, end - own.byteOffset);
      this.#buf = new Uint8Array(own.buffer, pending.byteOffset, pending.length + chunk.length);
      return;
    }
    const next = new Uint8Array(Math.max(2 * (pending.length + chunk.length), 1 << 16));
    next.set(pending);
    next.set(chunk, pending.length);
    this.#own = next;
    this.#buf = next.subarray(0, pending.length + chunk.length);
  }

  #consume(n: number): void {
    this.#buf = this.#buf.subarray(n);
    this.#base += n;
  }

  /** Parses the header if it has not been; undefined while more bytes are needed. */
  readHeader(): ContainerHeader | undefined {
    if (this.#header) return this.#header;
    const r = new ByteReader(this.#buf, this.#base);
    try {
      const magic = r.fixed(4, "magic");
      if (!MAGIC.every((b, i) => magic[i] === b))
        throw new AvaError("AVRO_CORRUPT", "not an Avro object container file: wrong magic at byte 0");
      const metadata = new Map<string, Uint8Array>();
      for (let n = this.#metadataCount(r); n > 0; n = this.#metadataCount(r)) {
        for (let i = 0; i < n; i++) {
          this.#boundField(r, "metadata key");
          const key = r.string("metadata key");
          this.#boundField(r, "metadata value");
          metadata.set(key, r.bytesField("metadata value").slice());
        }
      }
      const sync = r.fixed(16, "sync marker").slice();
      this.#header = { metadata, sync, length: this.#base + r.pos };
      this.#consume(r.pos);
      return this.#header;
    } catch (err) {
      if (!r.truncated) throw err;
      if (this.#buf.length >= this.#maxHeaderBytes) this.#headerTooLong(`${this.#buf.length} bytes`);
      return undefined; // more bytes may come; finish() reports a cut file
    }
  }

  #headerTooLong(what: string): never {
    throw new AvaError(
      "AVRO_CORRUPT",
      `the header would take ${what}, over the ${this.#maxHeaderBytes}-byte limit: not a stream file (or a damaged one)`,
    );
  }

  /** A metadata block's entry count, refused at once when its entries could not fit the header limit. */
  #metadataCount(r: ByteReader): number {
    const at = r.pos;
    const count = Math.abs(r.long()); // a negative count is followed by a size, which blockCount reads
    if (at + 2 * count > this.#maxHeaderBytes) this.#headerTooLong(`${count} metadata entries`);
    r.pos = at;
    return r.blockCount("metadata", 2);
  }

  /** Refuses a key or value whose declared length runs past the header limit, before waiting for it. */
  #boundField(r: ByteReader, what: string): void {
    const at = r.pos;
    const n = r.long();
    if (r.pos + n > this.#maxHeaderBytes)
      this.#headerTooLong(`a ${n}-byte ${what} at byte ${this.#base + at}`);
    r.pos = at;
  }

  /** The next whole block; undefined while more bytes are needed (or at a clean end). */
  nextBlock(): RawBlock | undefined {
    const header = this.readHeader();
    if (!header || this.#buf.length === 0) return undefined;
    const offset = this.#base;
    const r = new ByteReader(this.#buf, this.#base);
    try {
      const count = r.long();
      const size = r.long();
      if (count < 0 || size < 0)
        throw new AvaError("AVRO_CORRUPT", `negative block count or size at byte ${offset}`);
      if (size > this.#maxBlockBytes) {
        throw new AvaError(
          "AVRO_CORRUPT",
          `block at byte ${offset} claims ${size} bytes, over the ${this.#maxBlockBytes}-byte limit`,
        );
      }
      if (count > this.#maxBlockBytes) {
        throw new AvaError(
          "AVRO_CORRUPT",
          `block at byte ${offset} claims ${count} records, more than it could hold`,
        );
      }
      const data = r.fixed(size, "block data"); // a view: appended chunks are never written to again
      const syncAt = r.pos;
      const sync = r.fixed(16, "sync marker");
      if (!header.sync.every((b, i) => sync[i] === b)) {
        throw new AvaError(
          "AVRO_CORRUPT",
          `sync marker mismatch at byte ${this.#base + syncAt}: the block at byte ${offset} is damaged`,
        );
      }
      this.#consume(r.pos);
      return { count, data, offset };
    } catch (err) {
      if (r.truncated) return undefined; // more bytes may come; finish() reports a cut file
      throw err;
    }
  }

  /** At the end of input: leftover bytes mean the file was cut. */
  finish(): void {
    if (!this.#header)
      throw new AvaError(
        "AVRO_CORRUPT",
        `truncated file: the header is incomplete (${this.#base + this.#buf.length} bytes)`,
      );
    if (this.#buf.length > 0)
      throw new AvaError("AVRO_CORRUPT", `truncated file: an incomplete block at byte ${this.#base}`);
  }
}
