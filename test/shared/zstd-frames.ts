// Zstandard files built by hand, for tests that run in Node and Chromium alike (Apache Avro's own zstandard
// files are Node-only fixtures): frames of raw blocks (stored bytes) and RLE blocks (one byte repeated),
// which need no compressor.
import type { AvroStreamRecord } from "../../src/avro.js";
import { ByteWriter } from "../../src/avro/binary.js";
import { encodeBlock, encodeHeader } from "../../src/avro/container.js";
import { writeRecord } from "../../src/avro/record.js";
import { AVRO_STREAM_SCHEMA_TEXT, SEED_BRANCH } from "../../src/avro/schema.js";
import { concatBytes } from "../../src/util/bytes.js";

export type ZstdBlock = { raw: Uint8Array } | { rle: number; size: number };

/** A zstandard frame of `blocks`, window 2^windowLog bytes, no content size and no checksum. */
export function zstdFrame(blocks: readonly ZstdBlock[], windowLog = 17): Uint8Array {
  const parts: Uint8Array[] = [Uint8Array.of(0x28, 0xb5, 0x2f, 0xfd, 0x00, (windowLog - 10) << 3)];
  blocks.forEach((block, i) => {
    const last = i === blocks.length - 1 ? 1 : 0;
    const [type, size, body] =
      "raw" in block ? [0, block.raw.length, block.raw] : [1, block.size, Uint8Array.of(block.rle)];
    const header = last | (type << 1) | (size << 3);
    parts.push(Uint8Array.of(header & 0xff, (header >> 8) & 0xff, header >> 16), body);
  });
  return concatBytes(parts);
}

/** The records' bytes as the seed's schema encodes them (one block's uncompressed data). */
export function recordBytes(records: readonly AvroStreamRecord[]): Uint8Array {
  const w = new ByteWriter();
  for (const r of records) writeRecord(w, r, (kind) => SEED_BRANCH[kind]);
  return w.view();
}

/** An Avro stream file with the zstandard codec whose blocks hold the given frames. */
export function zstdFile(blocks: readonly { count: number; frame: Uint8Array }[]): Uint8Array {
  const sync = Uint8Array.from({ length: 16 }, (_, i) => i * 7);
  const header = encodeHeader({ "avro.schema": AVRO_STREAM_SCHEMA_TEXT, "avro.codec": "zstandard" }, sync);
  return concatBytes([header, ...blocks.map((b) => encodeBlock(b.count, b.frame, sync))]);
}

/** RECORDS-like records in a zstandard file: raw blocks of at most 128 KiB. */
export function zstdFileOf(records: readonly AvroStreamRecord[]): Uint8Array {
  const data = recordBytes(records);
  const raws: ZstdBlock[] = [];
  for (let at = 0; at < data.length; at += 1 << 17) raws.push({ raw: data.subarray(at, at + (1 << 17)) });
  return zstdFile([{ count: records.length, frame: zstdFrame(raws) }]);
}
