// Records -> Avro stream blocks and files: the seed's schema text, a random sync marker, blocks of records
// compressed with the chosen codec. One block encoder serves both `encodeAvroStream` (a whole file in one
// buffer) and the streaming writer (`createWriter`, one pooled buffer per block).
import { ByteWriter } from "./binary.js";
import { type AvroCodec, checkCodec, checkSnappyMode, compress } from "./codecs.js";
import type { SnappyMode } from "./snappy.js";
import { BLOCK_HEAD_MAX, blockHead, blockParts, encodeHeader } from "./container.js";
import { type AvroStreamRecord, writeRecord } from "./record.js";
import { AVRO_STREAM_SCHEMA_TEXT, SEED_BRANCH, type ValueKind } from "./schema.js";
import { ScratchBytes } from "../util/bytes.js";

export interface EncodeOptions {
  codec?: AvroCodec;
  /** Records per block. Default 64. */
  recordsPerBlock?: number;
  /** Snappy blocks: "fast" (default) or "small" — see WriterOptions.snappy. */
  snappy?: SnappyMode;
}

const branchOf = (kind: ValueKind) => SEED_BRANCH[kind];

/** The file header our writers emit: the seed's schema text and the codec. */
export function streamHeader(codec: AvroCodec, sync: Uint8Array): Uint8Array {
  return encodeHeader({ "avro.schema": AVRO_STREAM_SCHEMA_TEXT, "avro.codec": codec }, sync);
}

/**
 * Appends blocks to `out`. With the null codec records are written straight into `out`: each block leaves
 * a gap for its count and size, closed once they are known, so no block is copied and no intermediate
 * buffer is allocated (fresh large allocations cost more in page faults than the copies). With a codec,
 * records go into one reused block buffer, are compressed into one reused scratch buffer, and the result is
 * copied into `out` at once: fresh buffers would be fresh memory to page in for every block.
 */
export class BlockEncoder {
  readonly #records: ByteWriter | undefined;
  readonly #scratch = new ScratchBytes();
  #count = 0;
  #blockAt = 0;

  constructor(
    readonly codec: AvroCodec,
    /** The file's sync marker; a writer that takes over a pooled encoder sets its own. */
    public sync: Uint8Array,
    /** Where blocks go; a writer may hand the encoder another buffer between blocks. */
    public out: ByteWriter = new ByteWriter(1 << 16),
    /** The expected size of a block's records before compression (growing would copy them, page by page). */
    recordsCapacity = 1 << 16,
    readonly snappy: SnappyMode = "fast",
  ) {
    this.#records = codec === "null" ? undefined : new ByteWriter(recordsCapacity);
  }

  /** Bytes its own buffers hold (records and compressed output), what keeping it for reuse costs. */
  get retainedBytes(): number {
    return (this.#records?.capacity ?? 0) + this.#scratch.capacity;
  }

  /** Records in the open block. */
  get count(): number {
    return this.#count;
  }

  add(rec: AvroStreamRecord): void {
    if (this.#records) writeRecord(this.#records, rec, branchOf);
    else {
      if (this.#count === 0) {
        this.#blockAt = this.out.length;
        this.out.skip(BLOCK_HEAD_MAX); // room for the block head, closed up once count and size are known
      }
      writeRecord(this.out, rec, branchOf);
    }
    this.#count++;
  }

  /** Closes the open block into `out` (nothing when it is empty). Synchronous with the null codec. */
  end(): Promise<void> | undefined {
    const count = this.#count;
    if (count === 0) return undefined;
    this.#count = 0;
    const records = this.#records;
    if (!records) {
      const { out } = this;
      out.closeGap(
        this.#blockAt,
        BLOCK_HEAD_MAX,
        blockHead(count, out.length - this.#blockAt - BLOCK_HEAD_MAX),
      );
      out.raw(this.sync);
      return undefined;
    }
    const append = (data: Uint8Array) => {
      for (const part of blockParts(count, data, this.sync)) this.out.raw(part);
      records.reset();
    };
    return compress(this.codec, records.view(), (n) => this.#scratch.take(n), this.snappy).then(append);
  }
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

/** The whole file in one buffer. The result may be a view into a larger buffer. */
export async function encodeAvroStream(
  records: Iterable<AvroStreamRecord>,
  { codec = "null", recordsPerBlock = 64, snappy = "fast" }: EncodeOptions = {},
): Promise<Uint8Array> {
  checkCodec(codec, "encodeAvroStream's codec");
  checkSnappyMode(snappy, "encodeAvroStream");
  const sync = crypto.getRandomValues(new Uint8Array(16));
  const out = new ByteWriter(codec === "null" ? sizeHint(records) : 1 << 16);
  out.raw(streamHeader(codec, sync));
  const blocks = new BlockEncoder(codec, sync, out, 1 << 16, snappy);
  for (const rec of records) {
    blocks.add(rec);
    if (blocks.count >= recordsPerBlock) await blocks.end();
  }
  await blocks.end();
  return out.view();
}
