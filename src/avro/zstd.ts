// The zstandard block codec, for reading. fzstd (a pure-JS decoder, 8 kB) decodes; what it would trust
// is checked here first. It allocates each frame's window as its header declares (up to 2 GB) and keeps
// whatever the blocks expand to, so every frame header is walked before decoding — its window must fit the
// block limit — and the output is counted block by block as it is produced.
import { Decompress } from "fzstd";
import { AvaError } from "../errors.js";
import { concatBytes } from "../util/bytes.js";

const ZSTD_MAGIC = 0xfd2fb528;
/** Skippable frames: magic 0x184D2A50 to 0x184D2A5F, then a 4-byte length. */
const SKIPPABLE = 0x184d2a50;

function corrupt(at: string, detail: string, cause?: unknown): AvaError {
  return new AvaError("AVRO_CORRUPT", `${at}: the zstandard data ${detail}`, { cause });
}

/**
 * Checks every frame of `data` without decoding: magic, header, window size against `limit`, block
 * headers within the data. Throws AVRO_CORRUPT on the first problem.
 */
function checkFrames(data: Uint8Array, limit: number, at: string): void {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let pos = 0;
  while (pos < data.length) {
    if (pos + 4 > data.length) throw corrupt(at, `ends inside a frame's magic number at byte ${pos}`);
    const magic = view.getUint32(pos, true);
    if ((magic & 0xfffffff0) === SKIPPABLE) {
      if (pos + 8 > data.length) throw corrupt(at, `ends inside a skippable frame at byte ${pos}`);
      pos += 8 + view.getUint32(pos + 4, true);
      continue;
    }
    if (magic !== ZSTD_MAGIC) throw corrupt(at, `has no zstandard frame at byte ${pos}`);
    pos += 4;
    if (pos >= data.length) throw corrupt(at, "ends inside a frame header");
    const descriptor = data[pos++]!;
    const singleSegment = (descriptor >> 5) & 1;
    const checksum = (descriptor >> 2) & 1;
    const dictionaryBytes = [0, 1, 2, 4][descriptor & 3]!;
    const contentSizeBytes = [singleSegment, 2, 4, 8][descriptor >> 6]!;
    let window = 0;
    if (!singleSegment) {
      const w = data[pos++]!;
      const base = 2 ** (10 + (w >> 3));
      window = base + (base / 8) * (w & 7);
    }
    if (dictionaryBytes > 0) throw corrupt(at, "needs a dictionary, which Avro files never have");
    if (pos + contentSizeBytes > data.length) throw corrupt(at, "ends inside a frame header");
    let contentSize = 0;
    for (let k = contentSizeBytes - 1; k >= 0; k--) contentSize = contentSize * 256 + data[pos + k]!;
    if (contentSizeBytes === 2) contentSize += 256;
    pos += contentSizeBytes;
    // A single-segment frame's window is its content size.
    if (singleSegment) window = contentSize;
    if (window > limit || contentSize > limit)
      throw corrupt(
        at,
        `declares ${Math.max(window, contentSize)} bytes, past the block limit ${limit}: refused`,
      );
    for (let last = 0; !last; ) {
      if (pos + 3 > data.length) throw corrupt(at, `ends inside a block header at byte ${pos}`);
      const header = data[pos]! | (data[pos + 1]! << 8) | (data[pos + 2]! << 16);
      last = header & 1;
      const type = (header >> 1) & 3;
      const size = header >>> 3;
      if (type === 3) throw corrupt(at, `has a reserved block type at byte ${pos}`);
      pos += 3 + (type === 1 ? 1 : size); // an RLE block stores its one byte
      if (pos > data.length) throw corrupt(at, "ends inside a block");
    }
    pos += 4 * checksum;
  }
  if (pos !== data.length) throw corrupt(at, "ends inside a frame");
}

/** A zstandard block's bytes, uncompressed; AVRO_CORRUPT past `limit` bytes or on bad data. */
export function unzstd(data: Uint8Array, limit: number, at: string): Uint8Array {
  checkFrames(data, limit, at);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const decoder = new Decompress((chunk) => {
    total += chunk.length;
    if (total > limit) throw corrupt(at, `decompresses past ${limit} bytes (the block limit): refused`);
    chunks.push(chunk);
  });
  try {
    decoder.push(data, true);
  } catch (cause) {
    if (cause instanceof AvaError) throw cause;
    throw corrupt(at, `is corrupt (${(cause as Error).message})`, cause);
  }
  return chunks.length === 1 ? chunks[0]! : concatBytes(chunks);
}
