// Inlined small appends (DuckLake's data inlining): an append of at most a few rows is committed inside its
// catalog entry — the Parquet bytes of its rows ride in the DataFile as base64 — instead of as a data file,
// which saves a file creation per commit (≈6 ms in OPFS). Everything that reads data files (scans, filters,
// time travel, streams, append_scan, SQL) reads an inlined one through dataFileBytes(), with the same
// statistics and provenance; maintenance flushes them into a real file with a "compact" snapshot.
import type { DataFile } from "../storage/catalog/model.js";
import type { FileStore } from "../storage/types.js";

/** Inlined files get paths of their own kind: nothing is ever written, listed or deleted under them. */
export const INLINE_SUFFIX = ".inline";

export function isInlinePath(path: string): boolean {
  return path.endsWith(INLINE_SUFFIX);
}

export interface InlineOptions {
  /** Appends of at most this many rows are inlined. Default 10 (DuckLake's). */
  maxRows?: number;
  /** …and whose Parquet bytes are at most this many. Default 16 KiB. */
  maxBytes?: number;
}

/** What `inline: true` means. */
export const INLINE_ON: Required<InlineOptions> = { maxRows: 10, maxBytes: 16 * 1024 };
/** The default for now: every append is a data file (see TableOptions.inline). */
export const INLINE_OFF: Required<InlineOptions> = { maxRows: 0, maxBytes: 0 };

export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** A data file's Parquet bytes: from the catalog entry when inlined, else from the file store. */
export function dataFileBytes(files: FileStore, file: DataFile): Promise<Uint8Array> {
  return file.inline !== undefined ? Promise.resolve(fromBase64(file.inline)) : files.read(file.path);
}
