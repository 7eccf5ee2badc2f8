// Parquet's DELTA_BINARY_PACKED encoding of an INT64 column: timestamps, above all. PLAIN stores epoch-ns
// timestamps in 8 bytes a row; here a block of 128 rows 1 ms apart is a few bytes (every difference equal:
// bit width 0), jittered ones take the bits of their jitter, and a block where a series starts over (the
// long table holds one channel's points after another's) takes the bits of its widest step. The layout
// (parquet-format Encodings.md): a header <block size 128> <4 miniblocks> <value count> <first value,
// zigzag>; then per block <min difference, zigzag> <4 bit widths> and each miniblock's 32 differences minus
// the min, bit-packed from the least significant bit (the last one padded with zeros; miniblocks after the
// last value are left out, their widths written as 0). Blocks whose differences fit in 32 bits are packed
// with numbers; the few others with bigints.
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
    const widths = new Uint8Array(MINIBLOCKS);
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

/** A block with a difference beyond 32 bits, in bigints. */
function wideBlock(out: ByteSink, values: BigInt64Array, from: number, end: number): void {
  const deltas: bigint[] = [];
  for (let i = from; i < end; i++) deltas.push(BigInt.asIntN(64, values[i + 1]! - values[i]!));
  let min = deltas[0]!;
  for (const d of deltas) if (d < min) min = d;
  zigzagBig(out, min);
  const adjusted = deltas.map((d) => d - min); // 0 … 2^64 - 1
  const widths: number[] = [];
  for (let m = 0; m < MINIBLOCKS; m++) {
    let max = 0n;
    for (const v of adjusted.slice(m * MINI, (m + 1) * MINI)) if (v > max) max = v;
    widths.push(max === 0n ? 0 : max.toString(2).length);
    out.byte(widths[m]!);
  }
  for (let m = 0; m * MINI < adjusted.length; m++) {
    const width = BigInt(widths[m]!);
    let acc = 0n;
    let bits = 0n;
    for (let k = m * MINI; k < (m + 1) * MINI; k++) {
      acc |= (adjusted[k] ?? 0n) << bits;
      bits += width;
      for (; bits >= 8n; bits -= 8n) {
        out.byte(Number(acc & 0xffn));
        acc >>= 8n;
      }
    }
  }
}

/** A signed 64-bit value, zigzag then unsigned LEB128. */
function zigzagBig(out: ByteSink, v: bigint): void {
  let z = BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
  for (; z >= 0x80n; z >>= 7n) out.byte(Number(z & 0x7fn) | 0x80);
  out.byte(Number(z));
}
