// Avro stream files on the Node filesystem: a sink for createWriter and a source for openAvroStream.
import { createReadStream } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import type { AvroSink } from "../../avro/writer.js";
import { ioError } from "./paths.js";

/** Writes the file at `path` (created or truncated on the first write; fsynced on close). */
export function nodeFileSink(path: string): AvroSink {
  let handle: Promise<FileHandle> | undefined;
  const file = () => {
    handle ??= open(path, "w");
    return handle;
  };
  return {
    async write(bytes) {
      try {
        await (await file()).write(bytes);
      } catch (err) {
        throw ioError(err, `writing ${path}`);
      }
    },
    async close() {
      try {
        const h = await file(); // a writer that never wrote still leaves its header-only file
        await h.sync();
        await h.close();
      } catch (err) {
        throw ioError(err, `closing ${path}`);
      }
    },
  };
}

/** Streams the file at `path` in chunks (64 KiB), for openAvroStream / readAvroStream / avroStreamToArrow. */
export async function* nodeFileSource(path: string): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: 1 << 16 })) yield chunk as Uint8Array;
  } catch (err) {
    throw ioError(err, `reading ${path}`);
  }
}
