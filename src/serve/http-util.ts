// HTTP plumbing for the server: bodies read within a size limit, JSON answers, and errors as
// `{ error: { code, message } }` with the HTTP status their code means (the ingest endpoint's one map).
import type { IncomingMessage, ServerResponse } from "node:http";
import { AvaError, isAvaError } from "../errors.js";
import { httpStatusOf } from "../ingest/http-errors.js";

/** An error the HTTP layer raises itself (auth, size, method, route); AvaErrors keep their own codes. */
export class HttpError extends Error {
  override readonly name = "HttpError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The status and body an error answers with; unexpected errors say little (the log has the rest). */
export function errorResponse(err: unknown): { status: number; code: string; message: string } {
  if ((err as { name?: unknown })?.name === "HttpError") {
    const e = err as HttpError;
    return { status: e.status, code: e.code, message: e.message };
  }
  if (isAvaError(err)) return { status: httpStatusOf(err), code: err.code, message: err.message };
  return { status: 500, code: "INTERNAL", message: "internal error" };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

export function sendError(res: ServerResponse, err: unknown): void {
  const { status, code, message } = errorResponse(err);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, status, { error: { code, message } });
}

/** The whole body, refused with 413 past `maxBytes` (checked on the declared length and as it arrives). */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  const tooLarge = () =>
    new AvaError("TOO_LARGE", `the request body is larger than the limit of ${maxBytes} bytes`);
  if (declared > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** A JSON body (an empty body is `undefined`); a malformed one is 400 with the parser's reason. */
export async function readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const type = req.headers["content-type"] ?? "";
  const body = await readBody(req, maxBytes);
  if (body.length === 0) return undefined;
  if (type && !/^application\/([\w.+-]*\+)?json\b/i.test(type))
    throw new HttpError(
      415,
      "UNSUPPORTED_MEDIA_TYPE",
      `send JSON (content-type: application/json), not ${type}`,
    );
  try {
    return JSON.parse(body.toString("utf8"));
  } catch (err) {
    throw new HttpError(400, "INVALID_ARGUMENT", `the request body is not JSON: ${(err as Error).message}`);
  }
}
