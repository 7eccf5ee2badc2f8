// Records -> a complete Avro stream file: the seed's schema text, a random sync marker, blocks of records
// compressed with the chosen codec. (The batching writer, `createWriter`, builds on this.)
import { ByteWriter } from "./binary.js";
import { type AvroCodec, compress } from "./codecs.js";
import { blockParts, encodeHeader } from "./container.js";
import { type AvroStreamRecord, writeRecord } from "./record.js";
import { AVRO_STREAM_SCHEMA_TEXT, SEED_BRANCH } from "./schema.js";
import { concatBytes } from "../util/bytes.js";

export interface EncodeOptions {
  codec?: AvroCodec;
  /** Records per block. Default 64. */
  recordsPerBlock?: number;
}

export async function encodeAvroStream(
  records: Iterable<AvroStreamRecord>,
  { codec = "null", recordsPerBlock = 64 }: EncodeOptions = {},
): Promise<Uint8Array> {
  const sync = crypto.getRandomValues(new Uint8Array(16));
  const parts: Uint8Array[] = [
    encodeHeader({ "avro.schema": AVRO_STREAM_SCHEMA_TEXT, "avro.codec": codec }, sync),
  ];
  let w = new ByteWriter();
  let count = 0;
  const flush = async () => {
    if (count === 0) return;
    parts.push(...blockParts(count, await compress(codec, w.view()), sync));
    // A fresh buffer (the parts above may be views of the old one), sized like the last block.
    w = new ByteWriter(w.length + (w.length >> 3));
    count = 0;
  };
  for (const rec of records) {
    writeRecord(w, rec, (kind) => SEED_BRANCH[kind]);
    if (++count >= recordsPerBlock) await flush();
  }
  await flush();
  return concatBytes(parts);
}
