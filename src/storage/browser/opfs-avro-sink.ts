// An Avro stream file in the Origin Private File System, written through createWritable: the file appears
// whole when the writer closes (the browser swaps it in), so a reader never sees half a block.
import type { AvroSink } from "../../avro/writer.js";
import { AvaError, toAvaError } from "../../errors.js";

/** A sink for createWriter onto the OPFS file at `path` ("/"-separated, created with its folders). */
export async function opfsFileSink(path: string): Promise<AvroSink> {
  const parts = path.split("/");
  if (parts.some((p) => p === "" || p === "." || p === ".."))
    throw new AvaError("INVALID_NAME", `OPFS path ${JSON.stringify(path)} is not a relative file path`);
  if (typeof navigator === "undefined" || typeof navigator.storage?.getDirectory !== "function") {
    throw new AvaError("UNAVAILABLE", "opfsFileSink needs OPFS: use it in a browser page or Worker");
  }
  try {
    let dir = await navigator.storage.getDirectory();
    for (const part of parts.slice(0, -1)) dir = await dir.getDirectoryHandle(part, { create: true });
    const writable = await (await dir.getFileHandle(parts.at(-1)!, { create: true })).createWritable();
    return {
      write: (bytes) =>
        writable
          .write(bytes as Uint8Array<ArrayBuffer>)
          .catch((err) => Promise.reject(toAvaError(err, `writing ${path}`))),
      close: () => writable.close().catch((err) => Promise.reject(toAvaError(err, `closing ${path}`))),
    };
  } catch (err) {
    throw toAvaError(err, `opening ${path}`);
  }
}
