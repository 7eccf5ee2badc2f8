// POSTing a batch through node:http(s) rather than `fetch`, in Node (and Bun, Deno: they provide node:http).
// Node's fetch (undici) copies every request body through a web stream: measured on loopback into a server
// that only reads the body, 100–260 ms of the sender's CPU per million points against 8–18 ms for the same
// 3.5 MB files through `http.request` with a keep-alive agent. That was more than half of what the live
// stream's sender spent.
//
// node:http is loaded lazily, through an import the bundlers cannot follow: this module is part of
// `avalanche-web/avro`, whose browser build must not reach any `node:*` module (test/node/browser-entry.test.ts).
// In a browser `hasNodeHttp()` is false and nothing is imported. Idle keep-alive sockets are unref'd by
// node:http's agent: they do not keep a process alive.
import type * as Http from "node:http";
import { concatBytes } from "../../util/bytes.js";

export interface PostAnswer {
  status: number;
  /** The answer's body as text (its first 64 KiB: enough for an error message). */
  text: string;
}

/** What a keep-alive POST needs of node:http / node:https. */
interface HttpModule {
  request: typeof Http.request;
  Agent: typeof Http.Agent;
}

interface Client {
  request: typeof Http.request;
  agent: Http.Agent;
}

const MAX_ANSWER_TEXT = 64 * 1024;

const clients = new Map<string, Promise<Client>>();

/** True where node:http exists and fetch is not a browser's: Node, Bun, Deno; never a page or a worker. */
export function hasNodeHttp(): boolean {
  const g = globalThis as { process?: { versions?: { node?: string } }; document?: unknown };
  const worker = (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== undefined;
  return typeof g.process?.versions?.node === "string" && g.document === undefined && !worker;
}

/** A specifier in a variable: bundlers leave `import(name)` alone, so no browser build reaches node:http. */
function load(name: string): Promise<HttpModule> {
  return import(/* @vite-ignore */ name) as Promise<HttpModule>;
}

/** One keep-alive client per protocol for the whole process: batches reuse their connection. */
function client(protocol: "http:" | "https:"): Promise<Client> {
  let c = clients.get(protocol);
  if (!c) {
    c = load(protocol === "https:" ? "node:https" : "node:http").then((m) => ({
      request: m.request,
      agent: new m.Agent({ keepAlive: true }),
    }));
    // A failed import is not cached: the next batch tries again.
    c.catch(() => clients.delete(protocol));
    clients.set(protocol, c);
  }
  return c;
}

/**
 * POSTs `body` to `target` and resolves with the answer's status and text; rejects (a plain Error, as fetch
 * would) when the connection fails or `signal` aborts — the caller's signal includes its timeout.
 */
export async function nodeHttpPost(
  target: URL,
  body: Uint8Array,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<PostAnswer> {
  const { request, agent } = await client(target.protocol as "http:" | "https:");
  signal.throwIfAborted();
  return new Promise<PostAnswer>((resolve, reject) => {
    const req = request(
      target,
      {
        method: "POST",
        agent,
        signal,
        headers: { ...headers, "content-length": String(body.byteLength) },
      },
      (res) => {
        const parts: Uint8Array[] = [];
        let kept = 0;
        res.on("data", (chunk: Uint8Array) => {
          if (kept >= MAX_ANSWER_TEXT) return; // read on (the connection stays reusable), keep no more
          parts.push(chunk);
          kept += chunk.length;
        });
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            text: new TextDecoder().decode(concatBytes(parts).subarray(0, MAX_ANSWER_TEXT)),
          }),
        );
        res.on("error", reject);
        res.on("aborted", () => reject(new Error("the answer was cut off before its end")));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
