// The ingest endpoint on node:http (toNodeListener) over a Node folder: a live stream whose
// acknowledgements are lost after the commit lands still puts every point in the table exactly once, the
// keys outlive a restart of the server, and a body without a length is cut off at maxBytes.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import * as ava from "../../src/node.js";

const Telemetry = ava.defineNamespace({
  name: "telemetry",
  tables: { points: ava.table({ schema: ava.avro.avroStreamArrowSchema }) },
});

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function folder(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "ava-ingest-"));
  cleanup.push(() => rm(root, { recursive: true, force: true }));
  return root;
}

/** A server on 127.0.0.1 in front of `handler`; `dropAck(i)` says whether request i loses its answer. */
async function serve(handler: ava.FetchHandler, dropAck: (i: number) => boolean = () => false) {
  const listener = ava.toNodeListener(handler);
  let i = 0;
  const server: Server = createServer((req, res) => {
    if (!dropAck(i++)) return listener(req, res);
    // The handler commits the batch, then the connection dies before the client hears of it.
    res.writeHead = (() => {
      req.socket.destroy();
      return res;
    }) as typeof res.writeHead;
    listener(req, res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  cleanup.push(() => {
    server.closeAllConnections(); // keep-alive sockets would hold close() for seconds
    return new Promise((r) => server.close(r));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/ingest`;
}

/** A checksum of every byte in order (a body read out of order or short differs). */
function crc(bytes: Uint8Array): number {
  let h = 0;
  for (let i = 0; i < bytes.length; i++) h = (Math.imul(h, 31) + bytes[i]!) | 0;
  return h;
}

async function pointCounts(ns: Awaited<ReturnType<typeof Telemetry.open>>) {
  const rows = await ns.points.scan({ columns: ["channel", "timestamp"] }).toArrow();
  const channel = rows.getChild("channel")!;
  const ts = rows.getChild("timestamp")!;
  const seen = new Map<string, number>();
  for (let r = 0; r < rows.numRows; r++) {
    const k = `${channel.get(r)}/${ts.get(r)}`;
    seen.set(k, (seen.get(k) ?? 0) + 1);
  }
  return seen;
}

describe("ingestHandler on node:http", () => {
  it("puts every point in the table once when acknowledgements are lost after the commit", async () => {
    const ns = await Telemetry.open({ storage: ava.nodeStorage({ root: await folder() }) });
    await ns.push();
    const url = await serve(ava.ingestHandler(ns.points), (i) => i % 3 === 1);
    const live = ava.avro.createLiveStream({ url, maxBatchPoints: 10_000, backoffMs: 5 });
    const channels = 50;
    const perChannel = 1_000;
    for (let t = 0; t < perChannel; t++)
      for (let c = 0; c < channels; c++) live.enqueue(`ch${c}`, BigInt(t), t + c / 100);
    await live.close();
    expect(live.status()).toMatchObject({ batchesSent: 5, pointsSent: 50_000 });
    expect(live.status().retries).toBeGreaterThanOrEqual(2);
    const seen = await pointCounts(ns);
    expect(seen.size).toBe(channels * perChannel);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    expect(await ns.points.history()).toHaveLength(5);
  }, 60_000);

  it("remembers committed keys across a restart of the server", async () => {
    const root = await folder();
    const sink = ava.avro.memorySink();
    const w = ava.avro.createWriter(sink);
    w.enqueueBatch("a", [1n, 2n, 3n], [1, 2, 3]);
    await w.close();
    const post = (url: string) =>
      fetch(url, {
        method: "POST",
        body: sink.bytes() as Uint8Array<ArrayBuffer>,
        headers: { "idempotency-key": "batch-7" },
      }).then((r) => r.json() as Promise<ava.IngestReceipt>);

    const first = await Telemetry.open({ storage: ava.nodeStorage({ root }) });
    await first.push();
    const receipt = await post(await serve(ava.ingestHandler(first.points)));
    expect(receipt).toMatchObject({ rows: 3, duplicate: false });

    const reopened = await Telemetry.open({ storage: ava.nodeStorage({ root }) });
    const again = await post(await serve(ava.ingestHandler(reopened.points)));
    expect(again).toEqual({ ...receipt, duplicate: true });
    expect((await reopened.points.scan().toArrow()).numRows).toBe(3);
  });

  it("reads a body whole with or without Content-Length, and still hands other handlers a stream", async () => {
    const ns = await Telemetry.open({ storage: ava.nodeStorage({ root: await folder() }) });
    await ns.push();
    const sink = ava.avro.memorySink();
    const w = ava.avro.createWriter(sink);
    w.enqueueBatch(
      "a",
      BigInt64Array.from({ length: 20_000 }, (_, i) => BigInt(i)),
      new Float64Array(20_000),
    );
    await w.close();
    const file = sink.bytes();
    /** POSTs `body` in 1 KiB writes: with its length declared, or chunked (no Content-Length). */
    const post = (url: string, body: Uint8Array, declared: boolean) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const headers = declared ? { "content-length": String(body.length) } : {};
        const req = request(new URL(url), { method: "POST", headers }, (res) => {
          let text = "";
          res.on("data", (d) => (text += d));
          res.on("end", () => resolve({ status: res.statusCode!, text }));
        });
        req.on("error", reject);
        for (let at = 0; at < body.length; at += 1024) req.write(body.subarray(at, at + 1024));
        req.end();
      });
    const ingest = await serve(ava.ingestHandler(ns.points));
    for (const declared of [true, false]) {
      const { status, text } = await post(ingest, file, declared);
      expect(status).toBe(200);
      expect(JSON.parse(text)).toMatchObject({ rows: 20_000, duplicate: false });
    }
    expect((await ns.points.scan().toArrow()).numRows).toBe(40_000);
    // A handler of its own reads the body through the Request's stream, whole and in order.
    const echo = await serve(async (r) => new Response(String(crc(new Uint8Array(await r.arrayBuffer())))));
    for (const declared of [true, false])
      expect((await post(echo, file, declared)).text).toBe(String(crc(file)));
    // A file cut short is refused whole, and nothing of it is appended.
    const cut = await post(ingest, file.subarray(0, file.length - 100), true);
    expect(cut.status).toBe(400);
    expect(JSON.parse(cut.text).error.code).toBe("AVRO_CORRUPT");
    expect(await ns.points.history()).toHaveLength(2);
  });

  it("keeps every value of batches big and small: request bodies, blocks and Parquet files reuse buffers", async () => {
    // Memory storage keeps what it is given (a copy), node storage what is on disk: both must hold each
    // batch's own values after the next batches were read into and written from the same pooled memory.
    for (const storage of [ava.memoryStorage(), ava.nodeStorage({ root: await folder() })]) {
      const ns = await Telemetry.open({ storage });
      await ns.push();
      const url = await serve(ava.ingestHandler(ns.points));
      const live = ava.avro.createLiveStream({ url, maxBatchPoints: 1_000_000, backoffMs: 5 });
      const sizes = [120_000, 7_000, 90_000, 300, 150_000, 40_000]; // each shorter than one before it, too
      let t = 0;
      const expected = new Map<bigint, number>();
      for (const n of sizes) {
        const ts = BigInt64Array.from({ length: n }, () => BigInt(t++));
        const values = Float64Array.from(ts, (x) => Number(x) * 1.5 + 0.25);
        for (let i = 0; i < n; i++) expected.set(ts[i]!, values[i]!);
        live.enqueueBatch(`ch${n}`, ts, values);
        await live.flush(); // one batch a request
      }
      await live.close();
      expect(live.status()).toMatchObject({ batchesSent: sizes.length, retries: 0 });
      const rows = await ns.points.scan({ columns: ["timestamp", "double"] }).toArrow();
      expect(rows.numRows).toBe(t);
      const ts = rows.getChild("timestamp")!;
      const dbl = rows.getChild("double")!;
      let wrong = 0;
      const raw = ts.toArray() as BigInt64Array; // epoch ns as written (get() answers milliseconds)
      for (let r = 0; r < rows.numRows; r++) if (expected.get(raw[r]!) !== dbl.get(r)) wrong++;
      expect(wrong).toBe(0);
    }
  });

  it("answers 413 to a chunked body past maxBytes without reading it all", async () => {
    const ns = await Telemetry.open({ storage: ava.nodeStorage({ root: await folder() }) });
    await ns.push();
    const url = new URL(await serve(ava.ingestHandler(ns.points, { maxBytes: 64 * 1024 })));
    const { status, connection } = await new Promise<{ status: number; connection: string | undefined }>(
      (resolve, reject) => {
        const req = request(url, { method: "POST" }, (res) => {
          res.resume();
          resolve({ status: res.statusCode!, connection: res.headers.connection });
          req.destroy(); // stop sending the rest
        });
        req.on("error", () => {}); // the server may close the socket while we are still writing
        let sent = 0;
        const pump = () => {
          while (sent < 50 * 1024 * 1024 && req.write(new Uint8Array(16 * 1024))) sent += 16 * 1024;
          if (sent < 50 * 1024 * 1024) req.once("drain", pump);
          else req.end();
        };
        pump();
        setTimeout(() => reject(new Error("no answer")), 10_000);
      },
    );
    expect(status).toBe(413);
    expect(connection).toBe("close"); // the rest of the body is not read to keep the connection
    expect(await ns.points.history()).toHaveLength(0);
  });
});
