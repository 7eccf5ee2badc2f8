// Reads an Avro stream file block by block from bytes, a Blob/File, a ReadableStream or any async
// iterable of chunks: the header's schema is resolved first (seed, Rust or legacy order), then records
// stream out with their values in typed arrays. Every failure is an AvaError naming the file offset.
import { AvaError } from "../errors.js";
import { ByteReader } from "./binary.js";
import { type AvroReadCodec, checkReadCodec, decompress } from "./codecs.js";
import {
  type ContainerLimits,
  ContainerReader,
  DEFAULT_MAX_BLOCK_BYTES,
  DEFAULT_MAX_HEADER_BYTES,
} from "./container.js";
import { TypedArena } from "./arena.js";
import { type AvroStreamRecord, readRecord } from "./record.js";
import { resolveStreamSchema, type StreamSchema } from "./schema.js";
import { BufferPool } from "../util/buffer-pool.js";
import { ScratchBytes } from "../util/bytes.js";

export type AvroSource = Uint8Array | Blob | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

/** Each record takes at least 4 bytes (channel, timestamps, values and tags lengths): bounds a block's count. */
const MIN_RECORD_BYTES = 4;

async function* chunks(source: AvroSource): AsyncGenerator<Uint8Array> {
  if (source instanceof Uint8Array) {
    yield source;
    return;
  }
  const stream = source instanceof Blob ? source.stream() : source;
  if (Symbol.asyncIterator in stream) {
    yield* stream as AsyncIterable<Uint8Array>;
    return;
  }
  const reader = (stream as ReadableStream<Uint8Array>).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

export interface ReadOptions extends ContainerLimits {}

export interface RecordsOptions {
  /**
   * Decode every record into the same buffers: a record's `timestamps` and typed `values` are valid only
   * until the next record is pulled (`slice()` what you keep). For consumers that copy or aggregate as they
   * go: first-touched memory is most of a read's cost in Chromium (a 10M-point read 3× faster with it).
   */
  reuse?: boolean;
}

export interface AvroStreamFile {
  schema: StreamSchema;
  codec: AvroReadCodec;
  metadata: Map<string, Uint8Array>;
  /** Blocks read so far by records(). */
  readonly blocksRead: number;
  /** The records, in file order; read once. */
  records(options?: RecordsOptions): AsyncGenerator<AvroStreamRecord>;
}

/** Decompressed-block buffers free again, shared by this thread's readers (blocks are a few MiB at most). */
const blockBuffers = new BufferPool(32 * 1024 * 1024);

/** Opens a file: reads up to the end of its header, resolves its schema and codec. */
export async function openAvroStream(source: AvroSource, options: ReadOptions = {}): Promise<AvroStreamFile> {
  const maxBlockBytes = options.maxBlockBytes ?? DEFAULT_MAX_BLOCK_BYTES;
  const container = new ContainerReader({
    maxBlockBytes,
    maxHeaderBytes: options.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES,
  });
  const input = chunks(source);
  let ended = false;
  const feed = async (): Promise<boolean> => {
    const next = await input.next();
    if (next.done) {
      ended = true;
      return false;
    }
    container.append(next.value);
    return true;
  };
  while (!container.readHeader()) {
    if (!(await feed())) container.finish(); // throws: the header is incomplete
  }
  const header = container.header!;
  const text = (key: string) => {
    const v = header.metadata.get(key);
    return v && new TextDecoder().decode(v);
  };
  const schemaText = text("avro.schema");
  if (!schemaText) throw new AvaError("AVRO_SCHEMA", "the file's header has no avro.schema");
  const schema = resolveStreamSchema(schemaText);
  const codec = checkReadCodec(text("avro.codec") ?? "null", "the file's header");

  let blocksRead = 0;
  const arena = new TypedArena();
  async function* records({ reuse = false }: RecordsOptions = {}): AsyncGenerator<AvroStreamRecord> {
    // Records never keep views into their block's bytes, so every block decompresses into one buffer, and
    // that buffer goes on to the next file's reader (an ingest endpoint reads one file a request).
    const scratch = new ScratchBytes(codec === "null" ? undefined : blockBuffers.takeLargest());
    try {
      yield* blockRecords(scratch, reuse);
    } finally {
      blockBuffers.giveBack(scratch.buffer);
    }
  }
  async function* blockRecords(scratch: ScratchBytes, reuse: boolean): AsyncGenerator<AvroStreamRecord> {
    for (;;) {
      const block = container.nextBlock();
      if (!block) {
        if (ended || !(await feed())) {
          container.finish();
          return;
        }
        continue;
      }
      blocksRead++;
      const where = `block at byte ${block.offset}`;
      const data = await decompress(codec, block.data, maxBlockBytes, where, (n) => scratch.take(n));
      if (block.count * MIN_RECORD_BYTES > data.length) {
        throw new AvaError("AVRO_CORRUPT", `${where} claims ${block.count} records in ${data.length} bytes`);
      }
      // Offsets inside a compressed block are offsets in its uncompressed data; name the block too.
      const r = new ByteReader(data, codec === "null" ? block.offset : 0);
      for (let i = 0; i < block.count; i++) {
        if (reuse) arena.rewind();
        try {
          yield readRecord(r, schema.branches, arena);
        } catch (err) {
          if (codec !== "null" && (err as AvaError).code === "AVRO_CORRUPT") {
            throw new AvaError(
              "AVRO_CORRUPT",
              `${where} (${codec}), record ${i}: ${(err as Error).message} of the uncompressed data`,
              { cause: err },
            );
          }
          throw err;
        }
      }
      if (r.remaining > 0)
        throw new AvaError(
          "AVRO_CORRUPT",
          `${where}: ${r.remaining} bytes left over after its ${block.count} records`,
        );
    }
  }
  return {
    schema,
    codec,
    metadata: header.metadata,
    get blocksRead() {
      return blocksRead;
    },
    records,
  };
}

/** All records of a file (for small files and tests; stream `openAvroStream(...).records()` for large ones). */
export async function readAvroStream(
  source: AvroSource,
  options: ReadOptions = {},
): Promise<AvroStreamRecord[]> {
  const out: AvroStreamRecord[] = [];
  for await (const rec of (await openAvroStream(source, options)).records()) out.push(rec);
  return out;
}
