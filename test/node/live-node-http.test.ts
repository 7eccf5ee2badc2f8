// The live stream's node:http transport (src/avro/live/node-http-post.ts), which Node uses instead of fetch:
// every answer a server can give — 2xx, 500/503, 4xx with its message, a reset connection, no server, a
// timeout, an abort, the ingest endpoint's 413 that closes the connection — is settled as the fetch path
// settles it, one keep-alive connection carries batch after batch, and the bytes arrive whole.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { hasNodeHttp, nodeHttpPost } from "../../src/avro/live/node-http-post.js";
import * as ava from "../../src/node.js";
import { expectAvaError } from "../shared/fixtures.js";

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

interface Seen {
  body: Uint8Array;
  headers: IncomingMessage["headers"];
  socket: Socket;
}

/** A server on 127.0.0.1 answering request i with `answer(i, req, res)` once its body is read. */
async function serve(answer: (i: number, req: IncomingMessage, res: ServerResponse) => void) {
  const seen: Seen[] = [];
  const server: Server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    seen.push({ body: new Uint8Array(Buffer.concat(parts)), headers: req.headers, socket: req.socket });
    answer(seen.length - 1, req, res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  cleanup.push(() => {
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/ingest`, seen };
}

const batch = (id: string, bytes = new Uint8Array([1, 2, 3])): ava.avro.LiveBatch => ({
  id,
  bytes,
  points: 0,
});
const never = () => new AbortController().signal;

describe("the node:http transport", () => {
  it("is the one Node uses: bytes whole, headers sent, one keep-alive connection for batch after batch", async () => {
    expect(hasNodeHttp()).toBe(true);
    const { url, seen } = await serve((_i, _req, res) => res.writeHead(200).end("{}"));
    const send = ava.avro.avroTransport({ url, headers: { authorization: "Bearer t" } });
    const big = new Uint8Array(5 * 2 ** 20);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7919) >>> 3;
    await send(batch("b1", big), never());
    await send(batch("b2"), never());
    await send(batch("b3"), never());
    expect(seen.map((s) => s.headers["idempotency-key"])).toEqual(["b1", "b2", "b3"]);
    expect(Buffer.compare(seen[0]!.body, big)).toBe(0); // (toEqual walks 5 MB element by element)
    expect(seen[0]!.headers).toMatchObject({
      "content-type": "application/avro",
      "content-length": String(big.length),
      authorization: "Bearer t",
    });
    // undici's fetch says "user-agent: node"; node:http sends none.
    expect(seen[0]!.headers["user-agent"]).toBeUndefined();
    expect(new Set(seen.map((s) => s.socket)).size).toBe(1);
  });

  it("settles 500 and 503 as retryable IO_ERROR, 4xx as refused with the server's message", async () => {
    const { url } = await serve((i, _req, res) =>
      res.writeHead([500, 503, 429, 400][i] ?? 200).end(i === 3 ? "AVRO_CORRUPT: bad block" : "no"),
    );
    const send = ava.avro.avroTransport({ url });
    await expectAvaError(send(batch("b"), never()), "IO_ERROR", /answered 500 for batch b/);
    await expectAvaError(send(batch("b"), never()), "IO_ERROR", /answered 503/);
    await expectAvaError(send(batch("b"), never()), "IO_ERROR", /answered 429/);
    await expectAvaError(send(batch("b"), never()), "INVALID_ARGUMENT", /400.*AVRO_CORRUPT: bad block/);
    await send(batch("b"), never());
  });

  it("settles a reset connection, a server that is down, a timeout and an abort as IO_ERROR", async () => {
    const { url, seen } = await serve((i, req, res) => {
      if (i === 0)
        req.socket.destroy(); // reset before any answer
      else if (i === 1)
        setTimeout(() => res.writeHead(200).end(), 2_000); // past the client's timeout
      else res.writeHead(200).end();
    });
    const send = ava.avro.avroTransport({ url, timeoutMs: 300 });
    await expectAvaError(send(batch("r"), never()), "IO_ERROR", /sending batch r/);
    await expectAvaError(send(batch("t"), never()), "IO_ERROR", /sending batch t/);
    const aborted = new AbortController();
    aborted.abort(new Error("stream closed"));
    await expectAvaError(send(batch("a"), aborted.signal), "IO_ERROR", /sending batch a/);
    await send(batch("ok"), never());
    expect(seen.map((s) => s.headers["idempotency-key"])).toEqual(["r", "t", "ok"]);

    const down = await serve(() => {});
    const gone = down.url;
    await cleanup.pop()!(); // the server is closed: nothing listens on its port
    await expectAvaError(
      ava.avro.avroTransport({ url: gone })(batch("d"), never()),
      "IO_ERROR",
      /sending batch d/,
    );
  });

  it("keeps only the first 64 KiB of an answer's text, and reads it all (the connection stays usable)", async () => {
    const { url, seen } = await serve((_i, _req, res) => res.writeHead(200).end("x".repeat(300_000)));
    const answer = await nodeHttpPost(new URL(url), new Uint8Array([1]), {}, never());
    expect(answer).toEqual({ status: 200, text: "x".repeat(64 * 1024) });
    await nodeHttpPost(new URL(url), new Uint8Array([2]), {}, never());
    expect(seen[1]!.socket).toBe(seen[0]!.socket);
  });

  it("into the ingest endpoint: a body past maxBytes is refused (413 closes the connection), the next lands", async () => {
    const root = await mkdtemp(join(tmpdir(), "ava-node-http-"));
    cleanup.push(() => rm(root, { recursive: true, force: true }));
    const Telemetry = ava.defineNamespace({
      name: "telemetry",
      tables: { points: ava.table({ schema: ava.avro.avroStreamArrowSchema }) },
    });
    const ns = await Telemetry.open({ storage: ava.nodeStorage({ root }) });
    await ns.push();
    const listener = ava.toNodeListener(ava.ingestHandler(ns.points, { maxBytes: 4_096 }));
    const sockets = new Set<Socket>();
    const server = createServer((req, res) => {
      sockets.add(req.socket);
      listener(req, res);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    cleanup.push(() => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ingest`;
    const refused: unknown[] = [];
    const live = ava.avro.createLiveStream({ url, maxBatchPoints: 2_000, backoffMs: 5 });
    live.addEventListener("refused", (e) => refused.push((e as CustomEvent).detail.error));
    for (let t = 0; t < 2_000; t++) live.enqueue("big", BigInt(t), Math.random()); // ~32 KB: over the cap
    await live.flush();
    for (let t = 0; t < 10; t++) live.enqueue("small", BigInt(t), t);
    await live.close();
    expect(String(refused[0])).toMatch(/413.*TOO_LARGE/);
    expect(live.status()).toMatchObject({ batchesRefused: 1, batchesSent: 1, pointsSent: 10 });
    expect(sockets.size).toBe(2); // the refused batch's connection was closed, not reused
    // A body far past the cap: the server answers before reading it and closes; the answer still arrives
    // (not a write error on the closed socket, which would be retried for ever).
    const huge = await nodeHttpPost(new URL(url), new Uint8Array(8_000_000), {}, never());
    expect([huge.status, JSON.parse(huge.text).error.code]).toEqual([413, "TOO_LARGE"]);
    const rows = await ns.points.scan({ columns: ["channel"] }).toArrow();
    expect(rows.numRows).toBe(10);
  });
});
