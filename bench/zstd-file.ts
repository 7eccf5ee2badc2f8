// A zstandard copy of an Avro stream file for the read bench: the null-codec file's blocks recompressed
// by Python's zstandard module (Debian's python3-zstandard, which the interop tests use), since nothing in
// JavaScript here compresses zstd. Undefined when that Python module is missing.
import { execFileSync } from "node:child_process";
import { AVRO_STREAM_SCHEMA_TEXT } from "../src/avro/schema.js";
import { ContainerReader, encodeBlock, encodeHeader } from "../src/avro/container.js";
import { concatBytes } from "../src/util/bytes.js";

// Reads blocks framed as (4-byte big-endian length, bytes) on stdin; writes them compressed, framed alike.
const COMPRESS = `
import struct, sys, zstandard
src, out, c = sys.stdin.buffer, sys.stdout.buffer, zstandard.ZstdCompressor(level=3)
while head := src.read(4):
    block = c.compress(src.read(struct.unpack(">I", head)[0]))
    out.write(struct.pack(">I", len(block)) + block)
`;

function framed(parts: readonly Uint8Array[]): Uint8Array {
  return concatBytes(
    parts.flatMap((p) => {
      const head = new Uint8Array(4);
      new DataView(head.buffer).setUint32(0, p.length);
      return [head, p];
    }),
  );
}

function unframed(bytes: Uint8Array): Uint8Array[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    const n = view.getUint32(at);
    parts.push(bytes.subarray(at + 4, at + 4 + n));
    at += 4 + n;
  }
  return parts;
}

export function zstandardCopy(nullFile: Uint8Array): Uint8Array | undefined {
  const container = new ContainerReader({ maxBlockBytes: nullFile.length });
  container.append(nullFile);
  const header = container.readHeader()!;
  const blocks = [];
  for (let b = container.nextBlock(); b; b = container.nextBlock()) blocks.push(b);
  let compressed: Uint8Array[];
  try {
    const out = execFileSync("/usr/bin/python3", ["-c", COMPRESS], {
      input: framed(blocks.map((b) => b.data)),
      maxBuffer: 2 * nullFile.length,
      stdio: ["pipe", "pipe", "pipe"],
    });
    compressed = unframed(new Uint8Array(out.buffer, out.byteOffset, out.byteLength));
  } catch {
    return undefined;
  }
  const meta = { "avro.schema": AVRO_STREAM_SCHEMA_TEXT, "avro.codec": "zstandard" };
  return concatBytes([
    encodeHeader(meta, header.sync),
    ...blocks.map((b, i) => encodeBlock(b.count, compressed[i]!, header.sync)),
  ]);
}
