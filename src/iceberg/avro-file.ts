// Iceberg's Avro metadata files as whole buffers: one container file of records with the schema's text
// and Iceberg's key-value metadata in the header. Uncompressed: the files are a few KB, written on every
// commit, and a codec would cost more time than the bytes it saves.
import { ByteReader } from "../avro/binary.js";
import { ContainerReader, encodeBlock, encodeHeader } from "../avro/container.js";
import { AvaError } from "../errors.js";
import { concatBytes } from "../util/bytes.js";
import { type AvroRecord, type AvroValue, decodeDatum, encodeRecords } from "./avro-datum.js";

/** Each schema's text, made once: a commit writes two files of the same two schemas. */
const schemaText = new WeakMap<AvroRecord, string>();

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
  let made = headers.get(metadata);
  if (made) return made;
  // Math.random is enough for a sync marker and far cheaper than Node's crypto.getRandomValues.
  const sync = new Uint8Array(16);
  for (let i = 0; i < 16; i++) sync[i] = (Math.random() * 256) | 0;
  let text = schemaText.get(schema);
  if (text === undefined) {
    text = JSON.stringify(schema);
    schemaText.set(schema, text);
  }
  made = { header: encodeHeader({ ...metadata, "avro.schema": text, "avro.codec": "null" }, sync), sync };
  headers.set(metadata, made);
  return made;
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
