// Snappy raw blocks (the format of google/snappy's format_description.txt): a varint of the uncompressed
// length, then literals and back-references. The decoder checks the declared length against a limit before
// allocating and every copy against what has been written; the encoder is a greedy hash-table matcher.

export class SnappyError extends Error {}

function varint(bytes: Uint8Array): { value: number; next: number } {
  let value = 0;
  for (let i = 0, shift = 0; i < 5; i++, shift += 7) {
    if (i >= bytes.length) throw new SnappyError("truncated length");
    const b = bytes[i]!;
    value += (b & 0x7f) * 2 ** shift;
    if (!(b & 0x80)) return { value, next: i + 1 };
  }
  throw new SnappyError("length varint too long");
}

/** The uncompressed bytes; SnappyError when corrupt or when they would exceed `limit`. */
export function snappyDecompress(input: Uint8Array, limit: number): Uint8Array {
  const { value: length, next } = varint(input);
  if (length > limit) throw new SnappyError(`declares ${length} bytes, over the ${limit}-byte limit`);
  const out = new Uint8Array(length);
  let o = 0;
  let i = next;
  while (i < input.length) {
    const tag = input[i++]!;
    const type = tag & 3;
    if (type === 0) {
      let len = (tag >>> 2) + 1;
      if (len > 60) {
        const extra = len - 60;
        if (i + extra > input.length) throw new SnappyError("truncated literal length");
        len = 0;
        for (let k = 0; k < extra; k++) len += input[i + k]! * 2 ** (8 * k);
        len += 1;
        i += extra;
      }
      if (i + len > input.length || o + len > length) throw new SnappyError("literal runs past the data");
      out.set(input.subarray(i, i + len), o);
      i += len;
      o += len;
      continue;
    }
    let len: number;
    let offset: number;
    if (type === 1) {
      if (i >= input.length) throw new SnappyError("truncated copy");
      len = 4 + ((tag >>> 2) & 7);
      offset = ((tag >>> 5) << 8) | input[i++]!;
    } else {
      const size = type === 2 ? 2 : 4;
      if (i + size > input.length) throw new SnappyError("truncated copy");
      len = (tag >>> 2) + 1;
      offset = 0;
      for (let k = 0; k < size; k++) offset += input[i + k]! * 2 ** (8 * k);
      i += size;
    }
    if (offset === 0 || offset > o || o + len > length)
      throw new SnappyError(`copy of ${len} bytes at offset ${offset} is out of range`);
    if (offset >= len) out.copyWithin(o, o - offset, o - offset + len);
    else for (let k = 0; k < len; k++) out[o + k] = out[o + k - offset]!; // overlaps its own output
    o += len;
  }
  if (o !== length) throw new SnappyError(`produced ${o} bytes, declared ${length}`);
  return out;
}

const HASH_BITS = 14;

/** The most a block of `n` bytes can take compressed (snappy's MaxCompressedLength). */
function maxCompressedLength(n: number): number {
  return 32 + n + Math.ceil(n / 6);
}

/**
 * Greedy matcher over 4-byte hashes, writing into one preallocated buffer. Like snappy itself it skips
 * ahead faster the longer it finds no match (one more byte per step every 32 misses), so incompressible
 * data — telemetry doubles, mostly — costs little.
 */
export function snappyCompress(input: Uint8Array): Uint8Array {
  const out = new Uint8Array(maxCompressedLength(input.length));
  let o = 0;
  for (let n = input.length; ; ) {
    out[o++] = n >= 0x80 ? (n & 0x7f) | 0x80 : n;
    n = Math.floor(n / 128);
    if (n === 0) break;
  }
  const table = new Int32Array(1 << HASH_BITS).fill(-1);
  const load = (p: number) =>
    input[p]! | (input[p + 1]! << 8) | (input[p + 2]! << 16) | (input[p + 3]! << 24);
  const hash = (v: number) => Math.imul(v, 0x1e35a7bd) >>> (32 - HASH_BITS);
  const literal = (from: number, to: number) => {
    for (let start = from; start < to; start += 65536) {
      const len = Math.min(65536, to - start);
      if (len <= 60) out[o++] = (len - 1) << 2;
      else if (len <= 256) {
        out[o++] = 60 << 2;
        out[o++] = len - 1;
      } else {
        out[o++] = 61 << 2;
        out[o++] = (len - 1) & 0xff;
        out[o++] = (len - 1) >>> 8;
      }
      out.set(input.subarray(start, start + len), o);
      o += len;
    }
  };
  const copy = (offset: number, len: number) => {
    for (; len > 0; ) {
      const n = Math.min(64, len); // a copy with a 2-byte offset holds 1 to 64 bytes
      out[o++] = ((n - 1) << 2) | 2;
      out[o++] = offset & 0xff;
      out[o++] = offset >>> 8;
      len -= n;
    }
  };
  let pending = 0; // start of bytes not yet emitted
  let p = 0;
  let misses = 32;
  while (p + 4 <= input.length) {
    const v = load(p);
    const h = hash(v);
    const candidate = table[h]!;
    table[h] = p;
    if (candidate >= 0 && p - candidate <= 65535 && load(candidate) === v) {
      let len = 4;
      while (p + len < input.length && input[candidate + len] === input[p + len]) len++;
      literal(pending, p);
      copy(p - candidate, len);
      p += len;
      pending = p;
      misses = 32;
    } else p += misses++ >> 5;
  }
  literal(pending, input.length);
  return out.slice(0, o);
}
