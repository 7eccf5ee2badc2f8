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

/** Copies shorter than this go byte by byte: a builtin call (set, copyWithin) costs more than a few bytes. */
const SHORT = 32;

/**
 * The uncompressed bytes; SnappyError when corrupt or when they would exceed `limit`. `into(n)` may supply
 * the output buffer (a reader decompressing block after block reuses one: first-touching fresh memory for
 * every block cost a third of a snappy read).
 */
export function snappyDecompress(
  input: Uint8Array,
  limit: number,
  into: (n: number) => Uint8Array = (n) => new Uint8Array(n),
): Uint8Array {
  const { value: length, next } = varint(input);
  if (length > limit) throw new SnappyError(`declares ${length} bytes, over the ${limit}-byte limit`);
  const out = into(length);
  const end = input.length;
  let o = 0;
  let i = next;
  while (i < end) {
    const tag = input[i++]!;
    const type = tag & 3;
    if (type === 0) {
      let len = (tag >>> 2) + 1;
      if (len > 60) {
        const extra = len - 60;
        if (i + extra > end) throw new SnappyError("truncated literal length");
        len = 0;
        for (let k = 0; k < extra; k++) len += input[i + k]! * 2 ** (8 * k);
        len += 1;
        i += extra;
      }
      if (i + len > end || o + len > length) throw new SnappyError("literal runs past the data");
      if (len < SHORT) for (let k = 0; k < len; k++) out[o + k] = input[i + k]!;
      else out.set(input.subarray(i, i + len), o);
      i += len;
      o += len;
      continue;
    }
    let len: number;
    let offset: number;
    if (type === 1) {
      if (i >= end) throw new SnappyError("truncated copy");
      len = 4 + ((tag >>> 2) & 7);
      offset = ((tag >>> 5) << 8) | input[i++]!;
    } else if (type === 2) {
      if (i + 2 > end) throw new SnappyError("truncated copy");
      len = (tag >>> 2) + 1;
      offset = input[i]! | (input[i + 1]! << 8);
      i += 2;
    } else {
      if (i + 4 > end) throw new SnappyError("truncated copy");
      len = (tag >>> 2) + 1;
      offset = (input[i]! | (input[i + 1]! << 8) | (input[i + 2]! << 16) | (input[i + 3]! << 24)) >>> 0;
      i += 4;
    }
    if (offset === 0 || offset > o || o + len > length)
      throw new SnappyError(`copy of ${len} bytes at offset ${offset} is out of range`);
    // A byte loop also handles a copy that overlaps its own output (offset < len: a repeated pattern).
    if (len < SHORT || offset < len) for (let k = 0; k < len; k++) out[o + k] = out[o + k - offset]!;
    else out.copyWithin(o, o - offset, o - offset + len);
    o += len;
  }
  if (o !== length) throw new SnappyError(`produced ${o} bytes, declared ${length}`);
  return out;
}

const HASH_BITS = 14;

/**
 * How hard the encoder looks for matches: the shortest match it takes. "small" takes every match of 4 bytes
 * or more, as snappy itself does. "fast" passes over matches shorter than 8 bytes as misses: telemetry blocks
 * are mostly varint timestamps and doubles, where 4–7-byte matches come every few bytes (a timestamp's high
 * bytes repeat the previous one's), and taking each kept the matcher stepping byte by byte through the
 * block. Measured on a 250,000-point batch (50 random-walk channels, epoch-ns timestamps 1 ms apart,
 * 4.5 MB; bench/snappy-modes.ts): "small" 48 ms to 0.887 of its size, "fast" 10 ms to 1.000. Runs of 8
 * bytes or more (repeated values, zeros, text) are found either way.
 */
export type SnappyMode = "fast" | "small";
export const SNAPPY_MODES: readonly SnappyMode[] = ["fast", "small"];
const MIN_COPY: Record<SnappyMode, number> = { fast: 8, small: 4 };

/** The most a block of `n` bytes can take compressed (snappy's MaxCompressedLength). */
function maxCompressedLength(n: number): number {
  return 32 + n + Math.ceil(n / 6);
}

/**
 * Greedy matcher over 4-byte hashes, writing into one preallocated buffer. Like snappy itself it skips
 * ahead faster the longer it finds no match (one more byte per step every 32 misses), so incompressible
 * data — telemetry doubles, mostly — costs little. `into(n)` may supply that buffer (at least `n` bytes);
 * the result is a view of it.
 */
export function snappyCompress(
  input: Uint8Array,
  into: (n: number) => Uint8Array = (n) => new Uint8Array(n),
  mode: SnappyMode = "fast",
): Uint8Array {
  const minCopy = MIN_COPY[mode];
  const out = into(maxCompressedLength(input.length));
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
    let len = 0;
    if (candidate >= 0 && p - candidate <= 65535 && load(candidate) === v) {
      len = 4;
      while (p + len < input.length && input[candidate + len] === input[p + len]) len++;
    }
    if (len >= minCopy) {
      literal(pending, p);
      copy(p - candidate, len);
      p += len;
      pending = p;
      misses = 32;
    } else p += misses++ >> 5;
  }
  literal(pending, input.length);
  return out.subarray(0, o);
}
