// A request body read whole, but never more than a limit: the declared Content-Length is checked before a
// byte is read, and a body that keeps coming past the limit is cancelled as soon as it crosses it — a
// client cannot make the server buffer more than `maxBytes` by lying about the length or sending no length.
import { AvaError } from "../errors.js";
import { readAtMost } from "../util/bytes.js";
import { type DirectBody, takeDirectBody } from "./direct-body.js";

/**
 * The whole body, with `release()` to call once it is done with (nothing may read it afterwards): a body
 * read from node:http the direct way then goes back to its adapter's pool.
 */
export async function readBody(request: Request, maxBytes: number): Promise<DirectBody> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return { bytes: new Uint8Array(0), release: () => {} };
  const body = await readWhole(request, request.body, maxBytes);
  if (body === undefined) throw tooLarge(maxBytes);
  return body;
}

/** From node:http (toNodeListener) straight into one buffer, unless its body stream was read already. */
async function readWhole(
  request: Request,
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<DirectBody | undefined> {
  const direct = takeDirectBody(request);
  if (direct) {
    const body = await direct(maxBytes);
    if (body !== null) return body;
  }
  const bytes = await readAtMost(stream, maxBytes);
  return bytes && { bytes, release: () => {} };
}

function tooLarge(maxBytes: number): AvaError {
  return new AvaError(
    "TOO_LARGE",
    `the request body has more than ${maxBytes} bytes; this endpoint takes at most ${maxBytes}`,
  );
}
