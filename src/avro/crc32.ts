// CRC-32 in its two reflected flavours: IEEE 802.3 (the zlib/PNG one), which Avro's snappy codec appends to
// every block, and Castagnoli's CRC-32C, which Snappy's framing format checks each chunk with. Slicing by
// eight: eight table lookups per 8 bytes instead of one per byte (by four, it was a quarter of a snappy
// read). Int32 tables keep every value a small integer for the JIT.
function slicingTables(polynomial: number): Int32Array {
  const t = new Int32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? polynomial ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  for (let n = 0; n < 256; n++) {
    for (let k = 1; k < 8; k++) {
      const prev = t[(k - 1) * 256 + n]!;
      t[k * 256 + n] = (prev >>> 8) ^ t[prev & 0xff]!;
    }
  }
  return t;
}

function crcWith(t: Int32Array): (bytes: Uint8Array) => number {
  return (bytes) => {
    let c = -1;
    let i = 0;
    for (const end = bytes.length - 7; i < end; i += 8) {
      c ^= bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
      const hi = bytes[i + 4]! | (bytes[i + 5]! << 8) | (bytes[i + 6]! << 16) | (bytes[i + 7]! << 24);
      c =
        t[1792 + (c & 0xff)]! ^
        t[1536 + ((c >>> 8) & 0xff)]! ^
        t[1280 + ((c >>> 16) & 0xff)]! ^
        t[1024 + (c >>> 24)]! ^
        t[768 + (hi & 0xff)]! ^
        t[512 + ((hi >>> 8) & 0xff)]! ^
        t[256 + ((hi >>> 16) & 0xff)]! ^
        t[hi >>> 24]!;
    }
    for (; i < bytes.length; i++) c = t[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
    return (c ^ -1) >>> 0;
  };
}

/** CRC-32 (IEEE), as zlib computes it. */
export const crc32 = crcWith(slicingTables(0xedb88320));

/** CRC-32C (Castagnoli), as Snappy's framing format and iSCSI compute it. */
export const crc32c = crcWith(slicingTables(0x82f63b78));
