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
import { AvaError } from "../../errors.js";
import { concatBytes } from "../../util/bytes.js";

export interface PostAnswer {
  status: number;
  /** The answer's body as text (its first 64 KiB: enough for an error message). */
  text: string;
}

/**
 * TLS settings for https in Node: `ca`, the certificates (PEM) to trust besides Node's own list — a
 * private CA, or a server's self-signed certificate. A server whose certificate none of them signs (or
 * whose name it does not cover) is refused before any byte is sent.
 */
export interface NodeTls {
  ca: string | Uint8Array | readonly (string | Uint8Array)[];
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
/** https clients with their own trusted certificates: one agent (and its connections) per `tls` given. */
const tlsClients = new WeakMap<NodeTls, Promise<Client>>();

/** True where node:http exists and fetch is not a browser's: Node, Bun, Deno; never a page or a worker. */
export function hasNodeHttp(): boolean {
  const g = globalThis as { process?: { versions?: { node?: string } }; document?: unknown };
  const worker = (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== undefined;
  return typeof g.process?.versions?.node === "string" && g.document === undefined && !worker;
}

/** A specifier in a variable: bundlers leave `import(name)` alone, so no browser build reaches node:http. */
function load(name: string): Promise<unknown> {
  return import(/* @vite-ignore */ name);
}

/**
 * One keep-alive client per protocol for the whole process (batches reuse their connection), and one per
 * `tls` for https with trusted certificates of its own.
 */
function client(protocol: "http:" | "https:", tls: NodeTls | undefined): Promise<Client> {
  const https = protocol === "https:";
  let c = https && tls ? tlsClients.get(tls) : clients.get(protocol);
  if (!c) {
    c = (async () => {
      const m = (await load(https ? "node:https" : "node:http")) as HttpModule;
      // `ca` replaces Node's list: the bundled roots are given with the user's, so public servers pass too.
      const roots =
        tls && https ? ((await load("node:tls")) as { rootCertificates: readonly string[] }) : undefined;
      const ca = roots && tls ? { ca: [...roots.rootCertificates, ...[tls.ca].flat().map(pem)] } : {};
      return { request: m.request, agent: new m.Agent({ keepAlive: true, ...ca }) };
    })();
    // A failed import is not cached: the next batch tries again.
    c.catch(() => (https && tls ? tlsClients.delete(tls) : clients.delete(protocol)));
    if (https && tls) tlsClients.set(tls, c);
    else clients.set(protocol, c);
  }
  return c;
}

const pem = (cert: string | Uint8Array) => (typeof cert === "string" ? cert : new TextDecoder().decode(cert));

/** A `tls` option as given, or INVALID_ARGUMENT (`at` names the option). */
export function checkTls(tls: unknown, at: string): NodeTls | undefined {
  if (tls === undefined) return undefined;
  const ca = (tls as { ca?: unknown } | null)?.ca;
  const certs = [ca].flat();
  if (certs.length === 0 || !certs.every((c) => typeof c === "string" || c instanceof Uint8Array))
    throw new AvaError(
      "INVALID_ARGUMENT",
      `${at}: tls must be { ca } with ca a PEM certificate (string or bytes) or a list of them`,
    );
  if (!hasNodeHttp())
    throw new AvaError(
      "INVALID_ARGUMENT",
      `${at}: tls applies in Node; a browser trusts the certificates its system and user trust`,
    );
  return tls as NodeTls;
}

/**
 * Why a connection failed, said plainly when it was the server's certificate (a typed error the caller
 * can show, rather than OpenSSL's code alone).
 */
export function describeFailure(cause: unknown): string {
  const { message, code } = cause as { message?: string; code?: string };
  if (typeof code === "string" && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/.test(code))
    return `the server's TLS certificate was not accepted (${code}: ${message}); if a private CA signed it, give that CA as the stream's tls.ca`;
  return String(message);
}

/**
 * POSTs `body` to `target` and resolves with the answer's status and text; rejects (a plain Error, as fetch
 * would) when the connection fails or `signal` aborts — the caller's signal includes its timeout. It
 * resolves only once the socket holds no more of `body` (written out, or the request closed): a server may
 * answer before reading it all (an early 413), and the live stream reuses a batch's memory once answered.
 */
export async function nodeHttpPost(
  target: URL,
  body: Uint8Array,
  headers: Record<string, string>,
  signal: AbortSignal,
  tls?: NodeTls,
): Promise<PostAnswer> {
  const { request, agent } = await client(target.protocol as "http:" | "https:", tls);
  signal.throwIfAborted();
  return new Promise<PostAnswer>((resolve, reject) => {
    let answer: PostAnswer | undefined;
    let bodyDone = false;
    const settle = () => {
      if (answer && bodyDone) resolve(answer);
    };
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
        res.on("end", () => {
          answer = {
            status: res.statusCode ?? 0,
            text: new TextDecoder().decode(concatBytes(parts).subarray(0, MAX_ANSWER_TEXT)),
          };
          settle();
        });
        res.on("error", reject);
        res.on("aborted", () => reject(new Error("the answer was cut off before its end")));
      },
    );
    req.on("error", reject);
    const written = () => {
      bodyDone = true;
      settle();
    };
    req.on("finish", written);
    req.on("close", written);
    req.end(body);
  });
}
