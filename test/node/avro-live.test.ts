// createLiveStream against a real HTTP server on 127.0.0.1 that fails on purpose: 503s, a connection reset,
// an acknowledgement lost after the batch was kept, a slow answer past the client's timeout. The server
// keeps batches by Idempotency-Key, as the ingest endpoint will: every point arrives exactly once.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { avroTransport, createLiveStream, type LiveBatch, readAvroStream } from "../../src/avro.js";
import { expectAvaError } from "../shared/fixtures.js";
import { waitFor } from "../shared/subscribe-contract.js";

type Fault = "ok" | "503" | "reset" | "lost-ack" | "slow" | "400";

interface Fake {
  url: string;
  /** Kept batches by idempotency key. */
  kept: Map<string, Uint8Array>;
  /** Every body that arrived whole, by idempotency key (a re-sent batch has several). */
  bodies: Map<string, Uint8Array[]>;
  requests: { key: string | undefined; type: string | undefined; fault: Fault }[];
  server: Server;
}

async function body(req: IncomingMessage): Promise<Uint8Array> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return new Uint8Array(Buffer.concat(parts));
}

/** A server answering request i with faults[i] (then "ok"). */
async function fakeServer(faults: Fault[]): Promise<Fake> {
  const kept = new Map<string, Uint8Array>();
  const bodies = new Map<string, Uint8Array[]>();
  const requests: Fake["requests"] = [];
  const server = createServer(async (req, res) => {
    const fault = faults[requests.length] ?? "ok";
    const key = req.headers["idempotency-key"] as string | undefined;
    requests.push({ key, type: req.headers["content-type"], fault });
    const bytes = await body(req);
    if (key) bodies.set(key, [...(bodies.get(key) ?? []), bytes]);
    if (fault === "reset") return req.socket.destroy();
    if (fault === "503") return res.writeHead(503).end("busy");
    if (fault === "400") return res.writeHead(400).end("AVRO_CORRUPT: no");
    if (key && !kept.has(key)) kept.set(key, bytes); // a re-sent batch is acknowledged, not kept twice
    if (fault === "slow") return setTimeout(() => res.writeHead(200).end(), 1500); // kept, answered late
    if (fault === "lost-ack") return req.socket.destroy(); // kept, but the client never hears so
    res.writeHead(200).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/ingest`, kept, bodies, requests, server };
}

let open: Server[] = [];
afterEach(async () => {
  for (const s of open) await new Promise((r) => s.close(r));
  open = [];
});

async function pointsOf(files: Iterable<Uint8Array>) {
  const seen = new Map<string, number>();
  for (const f of files)
    for (const r of await readAvroStream(f))
      for (const t of r.timestamps) seen.set(`${r.channel}/${t}`, (seen.get(`${r.channel}/${t}`) ?? 0) + 1);
  return seen;
}

describe("createLiveStream, avro transport", () => {
  it("delivers every point exactly once through 503s, resets, lost acknowledgements and timeouts", async () => {
    const faults: Fault[] = ["503", "reset", "ok", "lost-ack", "503", "ok", "slow", "ok", "lost-ack"];
    const fake = await fakeServer(faults);
    open.push(fake.server);
    const live = createLiveStream({
      url: fake.url,
      maxBatchPoints: 5_000,
      backoffMs: 5,
      requestTimeoutMs: 500, // shorter than the slow answer: that request is abandoned and re-sent
      headers: { Authorization: "Bearer t" },
    });
    const retries: string[] = [];
    live.addEventListener("retry", (e) => retries.push((e as CustomEvent).detail.batch.id));
    const channels = 50;
    const perChannel = 600; // 30,000 points: 6 batches
    for (let i = 0; i < perChannel; i++)
      for (let c = 0; c < channels; c++) live.enqueue(`ch${c}`, BigInt(i), i * c);
    await live.close();
    const status = live.status();
    expect(status.batchesSent).toBe(6);
    expect(status.pointsSent).toBe(channels * perChannel);
    expect(status.batchesPending).toBe(0);
    // Six of the first nine requests fail and only three succeed, so each of the six batches needed a request
    // of its own past those: at least 12. How many failures count as retries depends on which overlap (with
    // two in flight, a failure behind a failed flight is re-posted without a retry of its own).
    expect(fake.requests.length).toBeGreaterThanOrEqual(12);
    expect(status.retries).toBeGreaterThanOrEqual(1);
    expect(retries.length).toBe(status.retries);
    const seen = await pointsOf(fake.kept.values());
    expect(seen.size).toBe(channels * perChannel);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    // every request carried its batch's key and the file type; re-sends reused the key
    expect(fake.requests.every((r) => r.type === "application/avro" && r.key)).toBe(true);
    expect(new Set(fake.requests.map((r) => r.key)).size).toBe(6);
    // The stream reuses a batch's memory once it is acknowledged: every re-send still carried the same bytes.
    for (const [key, sent] of fake.bodies)
      for (const b of sent) expect(Buffer.compare(b, sent[0]!), `a re-send of ${key} changed`).toBe(0);
    expect([...fake.bodies.values()].some((sent) => sent.length > 1)).toBe(true);
  }, 60_000);

  it("abandons a request past its timeout and sends it again with the same key", async () => {
    const fake = await fakeServer(["slow"]);
    open.push(fake.server);
    const transport = avroTransport({ url: fake.url, timeoutMs: 300 });
    const batch: LiveBatch = { id: "b1", bytes: new Uint8Array([1, 2, 3]), points: 0 };
    await expectAvaError(transport(batch, new AbortController().signal), "IO_ERROR", /b1/);
    await transport(batch, new AbortController().signal);
    expect(fake.requests.map((r) => r.key)).toEqual(["b1", "b1"]);
  });

  it("sets aside a batch the server refuses (4xx), reporting it, and goes on", async () => {
    const fake = await fakeServer(["400"]);
    open.push(fake.server);
    const live = createLiveStream({ url: fake.url, maxBatchPoints: 10, backoffMs: 5 });
    const refused: unknown[] = [];
    live.addEventListener("refused", (e) => refused.push((e as CustomEvent).detail.error));
    for (let i = 0; i < 20; i++) live.enqueue("a", BigInt(i), i);
    await live.close();
    expect(live.status()).toMatchObject({ batchesSent: 1, batchesRefused: 1, retries: 0, pointsSent: 10 });
    expect(String(refused[0])).toMatch(/400.*AVRO_CORRUPT/);
    await expectAvaError(() => live.enqueue("a", 99n, 1), "INVALID_ARGUMENT", /closed/);
  });

  it("takes a user transport function, and refuses bad options at once", async () => {
    const got: LiveBatch[] = [];
    const live = createLiveStream({ transport: async (b) => void got.push(b), maxDelayMs: 10 });
    live.enqueueBatch("x", [1n, 2n], [1, 2]);
    live.enqueueFromDict(3n, { x: 3, y: "s" });
    await waitFor(() => got.length > 0, "the batch sent by time, without flush");
    expect(got.length).toBe(1);
    await live.close();
    expect((await readAvroStream(got[0]!.bytes)).map((r) => r.channel).sort()).toEqual(["x", "y"]);
    await expectAvaError(() => createLiveStream({}), "INVALID_ARGUMENT", /needs a url/);
    await expectAvaError(() => createLiveStream({ url: "not a url" }), "INVALID_ARGUMENT", /absolute URL/);
    await expectAvaError(() => createLiveStream({ url: "ftp://x/y" }), "INVALID_ARGUMENT", /http/);
    await expectAvaError(
      () => createLiveStream({ url: "http://x/", transport: "nominal" as never }),
      "INVALID_ARGUMENT",
      /transport/,
    );
    await expectAvaError(
      () => createLiveStream({ url: "http://x/", snappy: "tiny" as never }),
      "INVALID_ARGUMENT",
      /createLiveStream: snappy "tiny"/,
    );
    // a refused point is refused by the stream as by the writer: nothing of it is sent
    const l2 = createLiveStream({ transport: async (b) => void got.push(b) });
    await expectAvaError(() => l2.enqueue("x", 1n, null as never), "INVALID_ARGUMENT", /nothing/);
    expect(l2.status().pointsBuffered).toBe(0);
    await l2.close();
  });
});
