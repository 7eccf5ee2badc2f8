// Snappy's framing format (`Content-Encoding: x-snappy-framed`), which Nominal's Rust client sends its
// requests in: the stream identifier chunk, then one chunk per 64 KiB of input — compressed when that
// saves bytes, stored otherwise — each with the masked CRC-32C of its uncompressed bytes
// (github.com/google/snappy/blob/main/framing_format.txt). Not the raw block format the Avro codec uses.
import { crc32c } from "../crc32.js";
import { snappyCompress } from "../snappy.js";

const STREAM_IDENTIFIER = new Uint8Array([0xff, 0x06, 0x00, 0x00, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59]);
/** The framing format's largest uncompressed chunk. */
const CHUNK = 65_536;
const COMPRESSED = 0x00;
const UNCOMPRESSED = 0x01;

/** The CRC as the format stores it: rotated and offset, so a CRC of data holding CRCs is not degenerate. */
export function maskedCrc32c(bytes: Uint8Array): number {
  const crc = crc32c(bytes);
  return (((crc >>> 15) | (crc << 17)) + 0xa282ead8) >>> 0;
}

export function snappyFrame(input: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [STREAM_IDENTIFIER];
  let size = STREAM_IDENTIFIER.length;
  for (let at = 0; at < input.length; at += CHUNK) {
    const raw = input.subarray(at, Math.min(at + CHUNK, input.length));
    const packed = snappyCompress(raw);
    const stored = packed.length < raw.length ? packed : raw;
    const header = new Uint8Array(8);
    const length = stored.length + 4; // the CRC counts as chunk data
    header[0] = stored === packed ? COMPRESSED : UNCOMPRESSED;
    header[1] = length & 0xff;
    header[2] = (length >>> 8) & 0xff;
    header[3] = (length >>> 16) & 0xff;
    new DataView(header.buffer).setUint32(4, maskedCrc32c(raw), true);
    parts.push(header, stored);
    size += header.length + stored.length;
  }
  const out = new Uint8Array(size);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
