// Iceberg's Avro metadata files as whole buffers: one container file of records with the schema's text
// and Iceberg's key-value metadata in the header. Uncompressed: the files are a few KB, written on every
// commit, and a codec would cost more time than the bytes it saves.
import { ByteReader, ByteWriter } from "../avro/binary.js";
import { BLOCK_HEAD_MAX, ContainerReader, MAGIC } from "../avro/container.js";
import { AvaError } from "../errors.js";
import { type AvroRecord, type AvroValue, decodeDatum, encodeRecords } from "./avro-datum.js";
import { getOrCreate } from "../util/get-or-create.js";

/**
 * The header entries every file of a schema has (its text, the null codec), encoded once: a manifest
 * list's header differs from the last one only in a few short snapshot fields.
 */
const fixedEntries = new WeakMap<AvroRecord, Uint8Array>();

function fixedEntriesOf(schema: AvroRecord): Uint8Array {
  return getOrCreate(fixedEntries, schema, () => {
    const w = new ByteWriter(4096);
    w.string("avro.schema");
    w.string(JSON.stringify(schema));
    w.string("avro.codec");
    w.string("null");
    return w.view().slice();
  });
}

/**
 * One sync marker per schema in this process: the marker only has to be unlikely in a file's data, which
 * a random one shared by several files is as much as one per file. Math.random is enough for it and far
 * cheaper than Node's crypto.getRandomValues.
 */
const syncMarkers = new WeakMap<AvroRecord, Uint8Array>();

function syncOf(schema: AvroRecord): Uint8Array {
  return getOrCreate(syncMarkers, schema, () => {
    const sync = new Uint8Array(16);
    for (let i = 0; i < 16; i++) sync[i] = (Math.random() * 256) | 0;
    return sync;
  });
}

/** Header bytes by metadata object, for callers that pass the same object for many files. */
const headers = new WeakMap<Record<string, string>, Uint8Array>();

/** The container header: magic, the metadata map as one block of entries, the sync marker. */
function writeHeader(w: ByteWriter, schema: AvroRecord, metadata: Record<string, string>): void {
  const entries = Object.entries(metadata);
  w.raw(MAGIC);
  w.long(entries.length + 2);
  for (const [k, v] of entries) {
    w.string(k);
    w.string(v);
  }
  w.raw(fixedEntriesOf(schema));
  w.long(0);
  w.raw(syncOf(schema));
}

export interface Reuse {
  /** `metadata` is an object passed again for other files (a manifest's, per table schema): its header bytes are kept. */
  header?: boolean;
  /** Record objects are passed again in later files (a manifest list's): their bytes are kept (avro-datum.ts). */
  records?: boolean;
}

/**
 * Where files are encoded: one buffer reused for every file, and the file copied out of it at its exact
 * size. A fresh buffer per file cost more than encoding its records (an ArrayBuffer is zeroed, tracked as
 * external memory, and collected later). One file at a time: encoding never awaits.
 */
const scratch = new ByteWriter(1 << 16);
const head = new ByteWriter(BLOCK_HEAD_MAX);

/** Records already encoded: `count` of them, one after another (what a block holds). */
export interface EncodedRecords {
  count: number;
  bytes: Uint8Array;
}

/**
 * A container file of `records`, encoded in one pass: the header, then one block whose byte count is
 * filled in once its records are written.
 */
export function writeAvroFile(
  schema: AvroRecord,
  metadata: Record<string, string>,
  records: readonly AvroValue[],
  reuse: Reuse = {},
): Uint8Array {
  return writeAvroFileAfter(schema, metadata, records, undefined, reuse).file;
}

/**
 * The same, with the records of `after` (encoded already, under the same schema) following `records` in
 * the block; with the file, its block's records, for a later file to end with. A manifest list repeats its
 * parent's list after its own manifest: copying the parent's block whole is one copy instead of a lookup
 * and a copy per manifest.
 */
export function writeAvroFileAfter(
  schema: AvroRecord,
  metadata: Record<string, string>,
  records: readonly AvroValue[],
  after: EncodedRecords | undefined,
  reuse: Reuse = {},
): { file: Uint8Array; records: EncodedRecords } {
  const w = scratch;
  w.reset();
  const known = headers.get(metadata);
  if (known) w.raw(known);
  else {
    writeHeader(w, schema, metadata);
    if (reuse.header) headers.set(metadata, w.view().slice());
  }
  const count = records.length + (after?.count ?? 0);
  if (count === 0) return { file: w.view().slice(), records: { count, bytes: new Uint8Array(0) } };
  const at = w.length;
  w.skip(BLOCK_HEAD_MAX);
  encodeRecords(w, schema, records, reuse.records ?? false);
  if (after) w.append(after.bytes);
  head.reset();
  head.long(count);
  head.long(w.length - at - BLOCK_HEAD_MAX);
  w.closeGap(at, BLOCK_HEAD_MAX, head.view());
  const end = w.length;
  w.raw(syncOf(schema));
  const file = w.view().slice();
  return { file, records: { count, bytes: file.subarray(at + head.length, end) } };
}

export interface AvroFile {
  metadata: Record<string, string>;
  records: AvroValue[];
}

/** Reads a file this module wrote (any writer's, as long as its codec is null and its types ours). */
export function readAvroFile(bytes: Uint8Array, name: string): AvroFile {
  const reader = new ContainerReader();
  reader.append(bytes);
  const header = reader.readHeader();
  if (!header) throw new AvaError("AVRO_CORRUPT", `${name}: truncated Avro header`);
  const decoder = new TextDecoder();
  const metadata = Object.fromEntries([...header.metadata].map(([k, v]) => [k, decoder.decode(v)]));
  const codec = metadata["avro.codec"] ?? "null";
  if (codec !== "null")
    throw new AvaError(
      "AVRO_CORRUPT",
      `${name}: codec ${codec} (only files written uncompressed are read back)`,
    );
  const schema = JSON.parse(metadata["avro.schema"] ?? "null") as AvroRecord;
  const records: AvroValue[] = [];
  for (let block = reader.nextBlock(); block; block = reader.nextBlock()) {
    const r = new ByteReader(block.data, block.offset);
    for (let i = 0; i < block.count; i++) records.push(decodeDatum(r, schema));
  }
  reader.finish();
  return { metadata, records };
}
