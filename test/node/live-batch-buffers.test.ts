// The live stream's batch memory (src/avro/live/batch-buffers.ts): a batch's buffer is reused for a later
// batch only once nothing can read it any more, and never when the app's own transport got the bytes.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLiveStream, type LiveBatch, readAvroStream } from "../../src/avro.js";
import { BatchBuffers } from "../../src/avro/live/batch-buffers.js";
import { nodeStorage } from "../../src/node.js";
import { BufferPool } from "../../src/util/buffer-pool.js";

/** Batch memory over a pool of the test's own, keeping at most `maxBytes` free (a fresh buffer of a tiny batch: 1,025+ bytes). */
const pooled = (maxBytes: number, maxLent = 8) => {
  const pool = new BufferPool(maxBytes);
  return { buffers: new BatchBuffers(true, maxLent, pool), pool };
};

async function fileOf(buffers: BatchBuffers, ...writes: number[][]): Promise<Uint8Array> {
  const sink = buffers.sink();
  for (const w of writes) await sink.write(Uint8Array.from(w));
  return sink.bytes();
}

describe("BatchBuffers", () => {
  it("joins a batch's writes, and reuses its buffer only after it is given back or released", async () => {
    const { buffers, pool } = pooled(4096);
    const a = await fileOf(buffers, [1, 2, 3], [4, 5]);
    expect([...a]).toEqual([1, 2, 3, 4, 5]);
    buffers.lend("a", a);
    const b = await fileOf(buffers, [6]);
    expect(b.buffer).not.toBe(a.buffer); // a is still lent
    buffers.giveBack(["a", "unknown"]);
    expect(pool.freeBytes).toBe(a.buffer.byteLength);
    const c = await fileOf(buffers, [7, 8]);
    expect(c.buffer).toBe(a.buffer);
    expect([...c]).toEqual([7, 8]);
    buffers.release(b); // on disk only: nobody holds it
    expect(pool.freeBytes).toBe(b.buffer.byteLength);
    expect((await fileOf(buffers, [9])).buffer).toBe(b.buffer);
  });

  it("never reuses a dropped batch's buffer, a too-small one, or any when recycling is off", async () => {
    const { buffers, pool } = pooled(1025);
    const a = await fileOf(buffers, [1]);
    buffers.lend("a", a);
    buffers.forget(["a"]);
    buffers.giveBack(["a"]);
    expect(pool.freeBytes).toBe(0);
    const big = new Array(5_000).fill(3);
    buffers.release(await fileOf(buffers, [1]));
    const grown = await fileOf(buffers, big); // the free buffer is too small: a new one
    expect(grown.length).toBe(5_000);
    expect(pool.freeBytes).toBe(1025); // the small one, given back as the batch outgrew it
    const offPool = new BufferPool(1 << 20);
    const off = new BatchBuffers(false, 8, offPool);
    const x = await fileOf(off, [1, 2]);
    off.lend("x", x);
    off.giveBack(["x"]);
    off.release(x);
    expect(offPool.freeBytes).toBe(0);
    expect(x.buffer.byteLength).toBe(2); // exact size when nothing is reused
  });

  it("shares free memory between the streams of a thread: one stream's batch buffer serves the next stream", async () => {
    const first = new BatchBuffers(true, 8); // the thread's pool, as a live stream's
    const second = new BatchBuffers(true, 8);
    const a = await fileOf(first, new Array(3_000).fill(1));
    first.lend("a", a);
    first.giveBack(["a"]);
    const b = await fileOf(second, new Array(2_000).fill(2));
    expect(b.buffer).toBe(a.buffer);
    expect([...b.subarray(0, 3)]).toEqual([2, 2, 2]);
  });

  it("keeps free buffers up to its pool's bound and forgets the oldest lent past maxLent", async () => {
    const { buffers, pool } = pooled(1025, 2);
    const files = [];
    for (let i = 0; i < 3; i++) {
      const f = await fileOf(buffers, [i]);
      buffers.lend(`b${i}`, f);
      files.push(f);
    }
    buffers.giveBack(["b0"]); // forgotten (past maxLent): not reused
    expect(pool.freeBytes).toBe(0);
    buffers.giveBack(["b1", "b2"]);
    expect(pool.freeBytes).toBe(1025); // one: a second passes the bound
  });
});

describe("a live stream with the app's transport function", () => {
  it("gives each batch memory of its own: bytes the function kept stay intact after later batches", async () => {
    const kept: LiveBatch[] = [];
    const live = createLiveStream({ transport: async (b) => void kept.push(b), maxBatchPoints: 1_000 });
    for (let i = 0; i < 10_000; i++) live.enqueue(`ch${i % 10}`, BigInt(i), i);
    await live.close();
    expect(kept.length).toBe(10);
    const seen = new Set<number>();
    for (const b of kept)
      for (const r of await readAvroStream(b.bytes)) for (const t of r.timestamps) seen.add(Number(t));
    expect(seen.size).toBe(10_000);
    expect(new Set(kept.map((b) => b.bytes.buffer)).size).toBe(10);
  });
});

describe("a live stream reusing batch memory over HTTP", () => {
  it.each(["memory", "nodeStorage"])(
    "%s outbox: a batch retried while later batches are cut is re-sent with its own bytes",
    async (kind) => {
      // The first requests fail: batch 1 waits in the outbox for its retries while batches 2..n are cut
      // (each of those would be copied into batch 1's buffer were it given back before its acknowledgement).
      const bodies = new Map<string, Buffer[]>();
      let requests = 0;
      const server = createServer(async (req, res) => {
        const parts: Buffer[] = [];
        for await (const c of req) parts.push(c as Buffer);
        const key = req.headers["idempotency-key"] as string;
        bodies.set(key, [...(bodies.get(key) ?? []), Buffer.concat(parts)]);
        res.writeHead(++requests <= 4 ? 503 : 200).end();
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      const root = await mkdtemp(join(tmpdir(), "ava-batch-buffers-"));
      try {
        const { port } = server.address() as AddressInfo;
        const live = createLiveStream({
          url: `http://127.0.0.1:${port}/`,
          maxBatchPoints: 2_000,
          backoffMs: 20,
          maxInFlight: 1,
          ...(kind === "nodeStorage" && { outbox: nodeStorage({ root, fsync: false }) }),
        });
        let stored = 0;
        live.addEventListener("stored", () => stored++);
        for (let batch = 0; batch < 8; batch++) {
          for (let i = 0; i < 2_000; i++) live.enqueue(`ch${i % 4}`, BigInt(batch * 2_000 + i), batch);
          // the batch is in the outbox before the next is cut (and takes a free buffer, if there is one)
          while (stored <= batch) await new Promise((r) => setTimeout(r, 5));
        }
        await live.close();
        expect(live.status()).toMatchObject({ batchesSent: 8, pointsSent: 16_000 });
        expect(requests).toBeGreaterThan(8);
        const seen = new Map<number, number>();
        for (const [key, sent] of bodies) {
          for (const b of sent) expect(Buffer.compare(b, sent[0]!), `a re-send of ${key} changed`).toBe(0);
          for (const r of await readAvroStream(new Uint8Array(sent[0]!)))
            for (const t of r.timestamps) seen.set(Number(t), (seen.get(Number(t)) ?? 0) + 1);
        }
        expect(seen.size).toBe(16_000);
        expect([...seen.values()].every((n) => n === 1)).toBe(true);
      } finally {
        await new Promise((r) => server.close(r));
        await rm(root, { recursive: true, force: true });
      }
    },
    30_000,
  );
});
