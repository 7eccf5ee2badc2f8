// Parquet's DELTA_BINARY_PACKED encoding of an INT64 column: timestamps, above all. PLAIN stores epoch-ns
// timestamps in 8 bytes a row; here a block of 128 rows 1 ms apart is a few bytes (every difference equal:
// bit width 0), jittered ones take the bits of their jitter, and a block where a series starts over (the
// long table holds one channel's points after another's) takes the bits of its widest step. The layout
// (parquet-format Encodings.md): a header <block size 128> <4 miniblocks> <value count> <first value,
// zigzag>; then per block <min difference, zigzag> <4 bit widths> and each miniblock's 32 differences minus
// the min, bit-packed from the least significant bit (the last one padded with zeros; miniblocks after the
// last value are left out, their widths written as 0). Blocks whose differences fit in 32 bits are packed
// with numbers; the few others as pairs of 32-bit words.
import { ByteSink } from "./byte-sink.js";

const BLOCK = 128;
const MINIBLOCKS = 4;
const MINI = BLOCK / MINIBLOCKS;

/**
 * The encoded values (two or more). Differences wrap around in two's complement, as the format says
 * (readers add them back the same way): from the smallest int64 to the largest is a step of -1.
 */
export function deltaBinaryPacked(values: BigInt64Array): Uint8Array {
  const n = values.length;
  const { deltas, wide } = int32Deltas(values);
  const out = new ByteSink(32 + Math.ceil((n - 1) / BLOCK) * (10 + MINIBLOCKS));
  out.varint(BLOCK);
  out.varint(MINIBLOCKS);
  out.varint(n);
  zigzagBig(out, values[0]!);
  for (let b = 0; b < n - 1; b += BLOCK) {
    const end = Math.min(n - 1, b + BLOCK);
    if (wide[b / BLOCK]) {
      wideBlock(out, values, b, end);
      continue;
    }
    let min = deltas[b]!;
    for (let i = b + 1; i < end; i++) if (deltas[i]! < min) min = deltas[i]!;
    out.varint(((min << 1) ^ (min >> 31)) >>> 0);
    const widths = blockWidths;
    for (let m = 0; m < MINIBLOCKS; m++) {
      let max = 0; // differences minus the min: 0 … 2^32 - 1, exact as numbers
      for (let i = b + m * MINI; i < Math.min(end, b + (m + 1) * MINI); i++)
        max = Math.max(max, deltas[i]! - min);
      widths[m] = 32 - Math.clz32(max);
      out.byte(widths[m]!);
    }
    for (let m = 0; m < MINIBLOCKS && b + m * MINI < end; m++)
      pack(out, deltas, b + m * MINI, end, min, widths[m]!);
  }
  return out.bytes();
}

/**
 * Each value minus the one before (delta i = values[i + 1] - values[i], wrapped to 64 bits) where it fits in
 * a signed 32-bit integer; `wide[block]` marks the blocks of 128 where one does not.
 */
function int32Deltas(values: BigInt64Array): { deltas: Int32Array; wide: Uint8Array } {
  const words = new Int32Array(values.buffer, values.byteOffset, 2 * values.length);
  const deltas = new Int32Array(values.length - 1);
  const wide = new Uint8Array(Math.ceil(deltas.length / BLOCK));
  for (let i = 1; i < values.length; i++) {
    const lo1 = words[2 * i]! >>> 0;
    const lo0 = words[2 * i - 2]! >>> 0;
    const lo = (lo1 - lo0) >>> 0;
    const hi = (words[2 * i + 1]! - words[2 * i - 1]! - (lo1 < lo0 ? 1 : 0)) | 0;
    // In range: high word 0 with the low word's top bit clear, or -1 with it set.
    if (hi === 0 ? lo >= 0x80000000 : hi !== -1 || lo < 0x80000000) wide[(i - 1) >> 7] = 1;
    else deltas[i - 1] = lo | 0;
  }
  return { deltas, wide };
}

/** One miniblock: 32 differences from `from` (zeros past `end`) minus `min`, `width` bits each. */
function pack(
  out: ByteSink,
  deltas: Int32Array,
  from: number,
  end: number,
  min: number,
  width: number,
): void {
  if (width === 0) return;
  let acc = 0; // pending bits, below 2^40: exact as a number
  let bits = 0;
  for (let i = from; i < from + MINI; i++) {
    acc += (i < end ? deltas[i]! - min : 0) * 2 ** bits;
    bits += width;
    for (; bits >= 8; bits -= 8) {
      out.byte(acc % 256);
      acc = Math.floor(acc / 256);
    }
  }
}

/**
 * A block with a difference beyond 32 bits, each 64-bit difference held as two 32-bit words: the long
 * table starts a series over every few thousand rows, and bigints here were most of an ingest's garbage
 * (3.5 MB a 250,000-point batch) and its costliest block.
 */
function wideBlock(out: ByteSink, values: BigInt64Array, from: number, end: number): void {
  const words = new Int32Array(values.buffer, values.byteOffset, 2 * values.length);
  const count = end - from;
  const lo = wideLo;
  const hi = wideHi;
  // Differences wrapped to 64 bits (hi signed, lo unsigned), and the smallest, compared as signed.
  let minHi = 0;
  let minLo = 0;
  for (let k = 0; k < count; k++) {
    const i = from + k;
    const lo1 = words[2 * i + 2]! >>> 0;
    const lo0 = words[2 * i]! >>> 0;
    lo[k] = lo1 - lo0;
    hi[k] = words[2 * i + 3]! - words[2 * i + 1]! - (lo1 < lo0 ? 1 : 0);
    const h = hi[k]! | 0;
    if (k === 0 || h < minHi || (h === minHi && lo[k]! < minLo)) {
      minHi = h;
      minLo = lo[k]!;
    }
  }
  zigzagBig(out, BigInt.asIntN(64, (BigInt(minHi) << 32n) | BigInt(minLo)));
  // Minus the min: 0 … 2^64 - 1, as unsigned words; zeros past the last difference.
  for (let k = 0; k < BLOCK; k++) {
    if (k >= count) {
      lo[k] = 0;
      hi[k] = 0;
      continue;
    }
    const l = lo[k]!;
    lo[k] = l - minLo;
    hi[k] = (hi[k]! | 0) - minHi - (l < minLo ? 1 : 0);
  }
  const widths = blockWidths;
  for (let m = 0; m < MINIBLOCKS; m++) {
    let orHi = 0;
    let orLo = 0;
    for (let k = m * MINI; k < (m + 1) * MINI; k++) {
      orHi |= hi[k]!;
      orLo |= lo[k]!;
    }
    widths[m] = orHi !== 0 ? 64 - Math.clz32(orHi) : 32 - Math.clz32(orLo);
    out.byte(widths[m]!);
  }
  for (let m = 0; m * MINI < count; m++) {
    const width = widths[m]!;
    if (width === 0) continue;
    const loBits = Math.min(width, 32);
    const hiBits = width - loBits;
    let acc = 0; // pending bits (fewer than 8), then a word's worth more: below 2^40, exact as a number
    let bits = 0;
    for (let k = m * MINI; k < (m + 1) * MINI; k++) {
      acc += lo[k]! * 2 ** bits; // lo[k] < 2^loBits: the min's subtraction left no higher bit set
      bits += loBits;
      for (; bits >= 8; bits -= 8) {
        out.byte(acc & 0xff);
        acc = Math.floor(acc / 256);
      }
      if (hiBits === 0) continue;
      acc += hi[k]! * 2 ** bits;
      bits += hiBits;
      for (; bits >= 8; bits -= 8) {
        out.byte(acc & 0xff);
        acc = Math.floor(acc / 256);
      }
    }
  }
}

/** A block's miniblock bit widths, reused block after block. */
const blockWidths = new Uint8Array(MINIBLOCKS);
/** A wide block's differences, low and high words (unsigned), reused block after block. */
const wideLo = new Uint32Array(BLOCK);
const wideHi = new Uint32Array(BLOCK);

/** A signed 64-bit value, zigzag then unsigned LEB128. */
function zigzagBig(out: ByteSink, v: bigint): void {
  let z = BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
  for (; z >= 0x80n; z >>= 7n) out.byte(Number(z & 0x7fn) | 0x80);
  out.byte(Number(z));
}
