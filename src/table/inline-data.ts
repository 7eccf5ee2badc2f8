// Inlined small appends (DuckLake's data inlining): an append of at most a few rows is committed inside its
// catalog entry — its rows ride in the DataFile as a base64 Arrow IPC stream — instead of as a data file,
// which saves a file creation per commit (≈6 ms in OPFS) and the Parquet encoding (≈1–3 ms for 10 rows,
// against ≈0.2 ms for IPC). Everything that reads data files (scans, filters, time travel, streams,
// append_scan, SQL) reads an inlined one through inlineTable() / dataFileParquet(), with the same
// statistics and provenance. A flush (see inline-flush.ts) merges them into a real Parquet file with a
// "compact" snapshot, and the snapshots that added them then keep only their slice of that file.
import * as A from "apache-arrow";
import { crc32 } from "../avro/crc32.js";
import { AvaError } from "../errors.js";
import { decodeParquet, encodeParquet } from "../parquet/parquet.js";
import type { DataFile } from "../storage/catalog/model.js";
import type { FileStore } from "../storage/types.js";
import { tableToIpcStream } from "../util/ipc-stream.js";
import { FLUSH_DEFAULTS, type FlushOptions } from "./inline-flush.js";

/** Inlined files get paths of their own kind: nothing is ever written, listed or deleted under them. */
export const INLINE_SUFFIX = ".inline";

export function isInlinePath(path: string): boolean {
  return path.endsWith(INLINE_SUFFIX);
}

export interface InlineOptions {
  /** Appends of at most this many rows are inlined. Default 10 (DuckLake's). */
  maxRows?: number;
  /** …and whose Arrow IPC bytes are at most this many. Default 16 KiB. */
  maxBytes?: number;
  /**
   * When inlined rows are flushed to a data file in the background, after the commit that makes it due
   * (see FlushOptions for the defaults); false: only maintenance (`maintain()`, auto maintenance) flushes.
   */
  flush?: FlushOptions | false;
}

/** The default, and what `inline: true` means. */
export const INLINE_ON: Required<InlineOptions> = { maxRows: 10, maxBytes: 16 * 1024, flush: FLUSH_DEFAULTS };
/** `inline: false`: every append is a data file. */
export const INLINE_OFF: Required<InlineOptions> = { maxRows: 0, maxBytes: 0, flush: false };

/** Node's Buffer where there is one (5× faster than btoa on a binary string); the browser has none. */
interface BufferLike {
  from(bytes: ArrayBufferLike, offset: number, length: number): { toString(encoding: "base64"): string };
  from(text: string, encoding: "base64"): Uint8Array;
}
const NodeBuffer = (globalThis as { Buffer?: BufferLike }).Buffer;

/** The engine's own encoder where there is one (same browsers as fromBase64 below): a payload per commit. */
const nativeToBase64 = (bytes: Uint8Array) => (bytes as { toBase64?: () => string }).toBase64?.();

export function toBase64(bytes: Uint8Array): string {
  if (NodeBuffer) return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  const native = nativeToBase64(bytes);
  if (native !== undefined) return native;
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * The engine's own decoder where there is one (Chromium ≥ 140, Firefox ≥ 133, Safari ≥ 18.2): a flush
 * decodes ~100 payloads at once, ~270 KB, which atob and a charCodeAt loop spend milliseconds of the
 * appender's thread on. It refuses what is not base64 (as atob does), in the same alphabet.
 */
const nativeBase64 = Uint8Array as { fromBase64?: (text: string) => Uint8Array };

export function fromBase64(text: string): Uint8Array {
  // Buffer decodes leniently; atob refuses what is not base64, which the damage checks rely on.
  if (NodeBuffer && /^[A-Za-z0-9+/]*={0,2}$/.test(text) && text.length % 4 === 0)
    return new Uint8Array(NodeBuffer.from(text, "base64"));
  if (nativeBase64.fromBase64) return nativeBase64.fromBase64(text);
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

function damaged(file: DataFile, why: string, cause?: unknown): AvaError {
  return new AvaError("CATALOG_CORRUPT", `inlined rows ${file.path} are damaged in the catalog: ${why}`, {
    cause,
  });
}

/**
 * The Arrow IPC stream of an inlined file (whose `inline` is set). A payload damaged in the catalog is
 * CATALOG_CORRUPT naming the file: its CRC-32 catches a changed letter that would still decode (to other
 * values); files inlined before the CRC was kept are checked by decoding (inlineTable) only.
 */
export function inlineBytes(file: DataFile): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = fromBase64(file.inline!);
  } catch (cause) {
    throw damaged(file, "the payload is not base64", cause);
  }
  if (file.inlineCrc !== undefined && crc32(bytes) !== file.inlineCrc)
    throw damaged(file, `the payload fails its CRC-32 (${crc32(bytes)}, recorded ${file.inlineCrc})`);
  return bytes;
}

/** The rows of an inlined file, checked against its row count too. */
export function inlineTable(file: DataFile): A.Table {
  const bytes = inlineBytes(file);
  let table: A.Table;
  try {
    table = A.tableFromIPC(bytes);
  } catch (cause) {
    throw damaged(file, `the payload is not an Arrow IPC stream (${String(cause)})`, cause);
  }
  if (table.numRows !== file.rowCount)
    throw damaged(file, `the payload holds ${table.numRows} rows; the catalog recorded ${file.rowCount}`);
  return table;
}

/** The rows as an inline payload: an Arrow IPC stream, base64, with the CRC-32 of the stream. */
export function inlinePayload(table: A.Table): { inline: string; inlineCrc: number; sizeBytes: number } {
  const bytes = tableToIpcStream(table);
  return { inline: toBase64(bytes), inlineCrc: crc32(bytes), sizeBytes: bytes.length };
}

/** The rows of an inlined file: from the catalog, or once flushed from its slice of the flushed file. */
export async function inlinedRows(files: FileStore, file: DataFile): Promise<A.Table> {
  const to = file.flushedTo;
  if (!to) return inlineTable(file);
  const whole = await decodeParquet(await files.read(to.path), { path: to.path });
  if (whole.numRows !== to.rowCount)
    throw new AvaError(
      "DATA_CORRUPT",
      `data file ${to.path} holds ${whole.numRows} rows; the catalog recorded ${to.rowCount}`,
    );
  return whole.slice(to.offset, to.offset + file.rowCount);
}

/** A data file as Parquet bytes (what DuckDB loads): an inlined one is encoded on the way. */
export async function dataFileParquet(files: FileStore, file: DataFile): Promise<Uint8Array> {
  return isInlinePath(file.path) ? encodeParquet(await inlinedRows(files, file)) : files.read(file.path);
}
