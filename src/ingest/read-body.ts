// A request body read whole, but never more than a limit: the declared Content-Length is checked before a
// byte is read, and a body that keeps coming past the limit is cancelled as soon as it crosses it — a
// client cannot make the server buffer more than `maxBytes` by lying about the length or sending no length.
import { AvaError } from "../errors.js";

export async function readBody(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge(Number(declared), maxBytes);
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(size, maxBytes);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const body = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    body.set(c, at);
    at += c.byteLength;
  }
  return body;
}

function tooLarge(size: number, maxBytes: number): AvaError {
  return new AvaError(
    "TOO_LARGE",
    `the request body has ${size > maxBytes ? `more than ${maxBytes}` : size} bytes; this endpoint takes at most ${maxBytes}`,
  );
}
