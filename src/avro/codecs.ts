// Block codecs of Avro object container files. deflate (raw DEFLATE, RFC 1951) uses only what every
// browser and Node 20 have (CompressionStream "deflate-raw"); snappy is raw Snappy followed by the
// big-endian CRC-32 of the uncompressed block; zstandard is read only (zstd.ts). Decompression stops at a
// bound, so a decompression bomb is an error, not an allocation.
import { AvaError } from "../errors.js";
import { readAtMost } from "../util/bytes.js";
import { crc32 } from "./crc32.js";
import { SNAPPY_MODES, SnappyError, type SnappyMode, snappyCompress, snappyDecompress } from "./snappy.js";
import { unzstd } from "./zstd.js";

/** The codecs files are written with. */
export type AvroCodec = "null" | "deflate" | "snappy";
/** The codecs files are read with: zstandard files (Apache Avro writes them) are read, not written. */
export type AvroReadCodec = AvroCodec | "zstandard";

export const CODECS: readonly AvroCodec[] = ["null", "deflate", "snappy"];
export const READ_CODECS: readonly AvroReadCodec[] = [...CODECS, "zstandard"];

/** A codec to write with; any other name is an INVALID_ARGUMENT (`at` says where it came from). */
export function checkCodec(name: string, at: string): AvroCodec {
  if ((CODECS as readonly string[]).includes(name)) return name as AvroCodec;
  const readOnly = name === "zstandard" ? " (zstandard files are read, not written)" : "";
  throw new AvaError(
    "INVALID_ARGUMENT",
    `${at}: codec ${JSON.stringify(name)} is not supported for writing${readOnly} (supported: ${CODECS.join(", ")})`,
  );
}

/** How snappy blocks are compressed ("fast" or "small", snappy.ts); anything else is INVALID_ARGUMENT. */
export function checkSnappyMode(mode: string, at: string): SnappyMode {
  if ((SNAPPY_MODES as readonly string[]).includes(mode)) return mode as SnappyMode;
  throw new AvaError(
    "INVALID_ARGUMENT",
    `${at}: snappy ${JSON.stringify(mode)} is not a snappy mode (${SNAPPY_MODES.join(" or ")})`,
  );
}

/** A file's codec, to read with. */
export function checkReadCodec(name: string, at: string): AvroReadCodec {
  if ((READ_CODECS as readonly string[]).includes(name)) return name as AvroReadCodec;
  throw new AvaError(
    "AVRO_CORRUPT",
    `${at}: codec ${JSON.stringify(name)} is not supported (supported: ${READ_CODECS.join(", ")})`,
  );
}

async function pipe(
  bytes: Uint8Array,
  transform: CompressionStream | DecompressionStream,
  limit: number,
): Promise<Uint8Array | undefined> {
  return readAtMost(new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(transform), limit);
}

/**
 * A block's bytes, compressed. `into(n)` may supply the snappy output buffer (a writer that copies each
 * block out at once reuses one); the result is then a view of it, valid until the next call. `snappy`: how
 * hard a snappy block looks for matches.
 */
export async function compress(
  codec: AvroCodec,
  data: Uint8Array,
  into: (n: number) => Uint8Array = (n) => new Uint8Array(n),
  snappy: SnappyMode = "fast",
): Promise<Uint8Array> {
  if (codec === "null") return data;
  if (codec === "snappy") {
    // Room for the CRC after the largest compressed size, so the block is one view of one buffer.
    const body = snappyCompress(data, (n) => into(n + 4), snappy);
    const out = new Uint8Array(body.buffer, body.byteOffset, body.length + 4);
    new DataView(out.buffer, out.byteOffset).setUint32(body.length, crc32(data), false);
    return out;
  }
  return (await pipe(data, new CompressionStream("deflate-raw"), Number.POSITIVE_INFINITY))!;
}

/**
 * The block's bytes, uncompressed; AVRO_CORRUPT past `limit` bytes or on a bad stream. `at` names the block.
 * `into(n)` may supply the output buffer for snappy blocks (see snappyDecompress).
 */
export async function decompress(
  codec: AvroReadCodec,
  data: Uint8Array,
  limit: number,
  at: string,
  into?: (n: number) => Uint8Array,
): Promise<Uint8Array> {
  if (codec === "null") return data;
  if (codec === "snappy") return unsnappy(data, limit, at, into);
  if (codec === "zstandard") return unzstd(data, limit, at);
  const out = await inflate(data, limit, at);
  if (!out)
    throw new AvaError("AVRO_CORRUPT", `${at}: decompresses past ${limit} bytes (the block limit): refused`);
  return out;
}

/** Trailing bytes after the end of a DEFLATE stream that are read past, as Apache Avro's Java and C do. */
const MAX_TRAILING_BYTES = 16;

/**
 * Raw DEFLATE, ignoring bytes after the end of the stream. Apache Avro's Python writer leaves the first
 * bytes of zlib's Adler-32 trailer there (`zlib.compress(data)[2:-1]`); Node's DecompressionStream reads
 * past them, Chromium's refuses them ("Junk found after end of compressed data"). So when a block fails,
 * it is tried again without its last 1..16 bytes — Python's 3 first: the first that decodes whole is the
 * stream itself (a cut stream never decodes, so only a whole stream followed by junk can pass), and a
 * block that never decodes is refused with its first error.
 */
async function inflate(data: Uint8Array, limit: number, at: string): Promise<Uint8Array | undefined> {
  try {
    return await pipe(data, new DecompressionStream("deflate-raw"), limit);
  } catch (cause) {
    const tries = [3, ...Array.from({ length: MAX_TRAILING_BYTES }, (_, i) => i + 1).filter((k) => k !== 3)];
    for (const k of tries) {
      if (k >= data.length) break;
      try {
        return await pipe(data.subarray(0, data.length - k), new DecompressionStream("deflate-raw"), limit);
      } catch {
        // not this many trailing bytes
      }
    }
    throw new AvaError("AVRO_CORRUPT", `${at}: the deflate data is corrupt (${(cause as Error).message})`, {
      cause,
    });
  }
}

function unsnappy(data: Uint8Array, limit: number, at: string, into?: (n: number) => Uint8Array): Uint8Array {
  if (data.length < 4) throw new AvaError("AVRO_CORRUPT", `${at}: a snappy block needs its 4-byte CRC`);
  let out: Uint8Array;
  try {
    out = snappyDecompress(data.subarray(0, data.length - 4), limit, into);
  } catch (err) {
    if (!(err instanceof SnappyError)) throw err;
    throw new AvaError("AVRO_CORRUPT", `${at}: the snappy data is corrupt (${err.message})`, { cause: err });
  }
  const expected = new DataView(data.buffer, data.byteOffset + data.length - 4, 4).getUint32(0, false);
  const actual = crc32(out);
  if (expected !== actual) {
    throw new AvaError(
      "AVRO_CORRUPT",
      `${at}: CRC mismatch (stored ${expected.toString(16)}, computed ${actual.toString(16)})`,
    );
  }
  return out;
}
