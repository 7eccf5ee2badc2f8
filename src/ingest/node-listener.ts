// A fetch-style handler on node:http: `http.createServer(toNodeListener(handler))`. The request body is
// passed as a stream (the handler decides how much to read; ingestHandler reads it whole the direct way,
// node-body.ts), and the response is streamed back; a client that goes away aborts the request's signal.
import type { IncomingMessage, ServerResponse } from "node:http";
import { setDirectBody } from "./direct-body.js";
import { nodeBody } from "./node-body.js";

export type FetchHandler = (request: Request) => Promise<Response>;

export function toNodeListener(handler: FetchHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    respond(handler, req, res).catch((err: unknown) => {
      // Only a broken socket gets here (the handler answers its own errors): nothing left to tell the client.
      res.destroy(err instanceof Error ? err : undefined);
    });
  };
}

async function respond(handler: FetchHandler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const aborted = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) aborted.abort();
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const body = req.method !== "GET" && req.method !== "HEAD" ? nodeBody(req) : undefined;
  const request = new Request(new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`), {
    method: req.method ?? "GET",
    headers,
    signal: aborted.signal,
    ...(body && { body: body.stream, duplex: "half" }),
  } as RequestInit);
  if (body) setDirectBody(request, body.direct);
  const response = await handler(request);
  const answer = Object.fromEntries(response.headers);
  // A body left unread (refused before or while it came: 401, 413): the connection is closed after the
  // answer, rather than the rest of the body read to keep it alive.
  if (body && !req.complete) answer.connection = "close";
  res.writeHead(response.status, answer);
  if (!response.body) {
    res.end();
    return;
  }
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    if (res.destroyed) return; // the client went away: stop reading the body (the loop's exit cancels it)
    if (!res.write(chunk))
      await new Promise((resolve) => {
        res.once("drain", resolve);
        res.once("close", resolve);
      });
  }
  res.end();
}
