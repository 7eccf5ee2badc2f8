// Iceberg's Avro metadata files as whole buffers: one container file of records with the schema's text
// and Iceberg's key-value metadata in the header. Uncompressed: the files are a few KB, written on every
// commit, and a codec would cost more time than the bytes it saves.
import { ByteReader, ByteWriter } from "../avro/binary.js";
import { ContainerReader, encodeBlock, MAGIC } from "../avro/container.js";
import { AvaError } from "../errors.js";
import { concatBytes } from "../util/bytes.js";
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
 * Headers by their metadata object: a caller that passes the same object again (a manifest's metadata
 * only changes with the table's schema) gets the same header bytes, sync marker included, instead of
 * encoding a few KB of schema text per file. The marker only has to be unlikely in the file's data, which a
 * random one shared by several files is as much as one per file.
 */
const headers = new WeakMap<Record<string, string>, { header: Uint8Array; sync: Uint8Array }>();

function headerOf(
  schema: AvroRecord,
  metadata: Record<string, string>,
): { header: Uint8Array; sync: Uint8Array } {
  return getOrCreate(headers, metadata, () => encodeHeader(schema, metadata));
}

function encodeHeader(
  schema: AvroRecord,
  metadata: Record<string, string>,
): { header: Uint8Array; sync: Uint8Array } {
  // Math.random is enough for a sync marker and far cheaper than Node's crypto.getRandomValues.
  const sync = new Uint8Array(16);
  for (let i = 0; i < 16; i++) sync[i] = (Math.random() * 256) | 0;
  // The container header: magic, the metadata map as one block of entries, the sync marker.
  const entries = Object.entries(metadata);
  const w = new ByteWriter(256);
  w.raw(MAGIC);
  w.long(entries.length + 2);
  for (const [k, v] of entries) {
    w.string(k);
    w.string(v);
  }
  w.raw(fixedEntriesOf(schema));
  w.long(0);
  w.raw(sync);
  return { header: w.view().slice(), sync };
}

/** A container file of `records`; pass the same `metadata` object for files whose metadata is the same. */
export function writeAvroFile(
  schema: AvroRecord,
  metadata: Record<string, string>,
  records: readonly AvroValue[],
): Uint8Array {
  const { header, sync } = headerOf(schema, metadata);
  if (records.length === 0) return header.slice();
  return concatBytes([header, encodeBlock(records.length, encodeRecords(schema, records), sync)]);
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
