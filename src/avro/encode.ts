// Records -> a complete Avro stream file: the seed's schema text, a random sync marker, blocks of records
// compressed with the chosen codec. (The batching writer, `createWriter`, builds on this.)
import { ByteWriter } from "./binary.js";
import { type AvroCodec, checkCodec, compress } from "./codecs.js";
import { BLOCK_HEAD_MAX, blockHead, blockParts, encodeHeader } from "./container.js";
import { type AvroStreamRecord, writeRecord } from "./record.js";
import { AVRO_STREAM_SCHEMA_TEXT, SEED_BRANCH } from "./schema.js";
import { ScratchBytes } from "../util/bytes.js";

export interface EncodeOptions {
  codec?: AvroCodec;
  /** Records per block. Default 64. */
  recordsPerBlock?: number;
}

/** An upper bound of the file's size when the records are an array (so the output never grows). */
function sizeHint(records: Iterable<AvroStreamRecord>): number {
  if (!Array.isArray(records)) return 1 << 16;
  let bytes = 1 << 12;
  for (const r of records as AvroStreamRecord[]) {
    const n = r.timestamps.length;
    const perValue = r.values.kind === "double" ? 9 : r.values.kind === "long" ? 11 : 32;
    bytes += 64 + 3 * r.channel.length + 10 * n + perValue * n;
    for (const [k, v] of Object.entries(r.tags)) bytes += 20 + 3 * (k.length + v.length);
  }
  return bytes;
}

/**
 * The whole file in one buffer. With the null codec records are written straight into it: each block
 * leaves a gap for its count and size, closed once they are known, so no block is copied and no
 * intermediate buffer is allocated (fresh large allocations cost more in page faults than the copies).
 * Compressed blocks are built apart and appended. The result may be a view into a larger buffer.
 */
export async function encodeAvroStream(
  records: Iterable<AvroStreamRecord>,
  { codec = "null", recordsPerBlock = 64 }: EncodeOptions = {},
): Promise<Uint8Array> {
  checkCodec(codec, "encodeAvroStream's codec");
  const sync = crypto.getRandomValues(new Uint8Array(16));
  const branchOf = (kind: keyof typeof SEED_BRANCH) => SEED_BRANCH[kind];
  const out = new ByteWriter(codec === "null" ? sizeHint(records) : 1 << 16);
  out.raw(encodeHeader({ "avro.schema": AVRO_STREAM_SCHEMA_TEXT, "avro.codec": codec }, sync));
  if (codec === "null") {
    let count = 0;
    let blockAt = 0;
    const close = () => {
      if (count === 0) return;
      out.closeGap(blockAt, BLOCK_HEAD_MAX, blockHead(count, out.length - blockAt - BLOCK_HEAD_MAX));
      out.raw(sync);
      count = 0;
    };
    for (const rec of records) {
      if (count === 0) {
        blockAt = out.length;
        out.skip(BLOCK_HEAD_MAX); // room for the block head, closed up once count and size are known
      }
      writeRecord(out, rec, branchOf);
      if (++count >= recordsPerBlock) close();
    }
    close();
    return out.view();
  }
  // One block buffer and one compression buffer serve every block, each compressed block being copied
  // into the output at once: fresh buffers would be fresh memory to page in for every block.
  const w = new ByteWriter();
  const scratch = new ScratchBytes();
  let count = 0;
  const flush = async () => {
    if (count === 0) return;
    for (const part of blockParts(count, await compress(codec, w.view(), (n) => scratch.take(n)), sync))
      out.raw(part);
    w.reset();
    count = 0;
  };
  for (const rec of records) {
    writeRecord(w, rec, branchOf);
    if (++count >= recordsPerBlock) await flush();
  }
  await flush();
  return out.view();
}
