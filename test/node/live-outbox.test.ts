// The live stream's durable outbox in Node, against a real HTTP server on 127.0.0.1 that fails on purpose
// (connection resets, 500/503, requests past the client's timeout, acknowledgements lost after the batch
// was kept, the server down for a while): every point arrives exactly once. Batches are Avro stream files
// in a nodeStorage folder (read by Apache Avro's Python), resumed in order by the next stream of the same
// name, sent by one sender at a time, and bounded by a byte cap whose policy is followed and counted.
import { execFileSync, spawn } from "node:child_process";
import { mkdtemp, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createLiveStream, type LiveBatch, type LiveStream, readAvroStream } from "../../src/avro.js";
import type { OutboxBatch } from "../../src/storage/catalog/model.js";
import { memoryStorage, nodeStorage } from "../../src/node.js";
import { expectAvaError } from "../shared/fixtures.js";
import { type FaultServer, faultServer } from "./fixtures/fault-server.js";
import { telemetryTable } from "./fixtures/telemetry-table.js";

const PYTHON = "/usr/bin/python3";

let open: FaultServer[] = [];
let streams: LiveStream[] = [];
afterEach(async () => {
  for (const s of streams) await s.abort();
  for (const s of open) await s.close();
  open = [];
  streams = [];
});

const tempRoot = (tag: string) => mkdtemp(join(tmpdir(), `ava-outbox-${tag}-`));

// Timestamps are whole microseconds (point i of a channel at i µs): DuckDB reads Parquet's ns timestamps at µs.

/** How many times each (channel, point) arrived: counts[channel][timestamp in µs]. */
async function countPoints(files: Iterable<Uint8Array>, channels: number, perChannel: number) {
  const counts = Array.from({ length: channels }, () => new Uint8Array(perChannel));
  for (const f of files)
    for (const r of await readAvroStream(f)) {
      const c = counts[Number(r.channel.slice(2))]!;
      for (const t of r.timestamps) c[Number(t / 1000n)]!++;
    }
  return counts;
}

/** Enqueues `rounds` batches of `channels` x `perRound` points (timestamps 0.. per channel), honouring backpressure. */
async function produce(
  live: LiveStream,
  rounds: number,
  channels: number,
  perRound: number,
  each?: (round: number) => Promise<void>,
) {
  for (let round = 0; round < rounds; round++) {
    await live.writable();
    const ts = new BigInt64Array(perRound);
    const values = new Float64Array(perRound);
    for (let i = 0; i < perRound; i++) {
      ts[i] = BigInt(round * perRound + i) * 1000n;
      values[i] = round * perRound + i;
    }
    for (let c = 0; c < channels; c++) live.enqueueBatch(`ch${c}`, ts, values);
    await each?.(round);
  }
}

async function until(what: string, ok: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * A transport that fails (as a network failure would) while `down.value` is true and records what it sent,
 * once per batch id as an ingest endpoint keeps it: a batch posted beside one that failed is posted again
 * (its answer was not taken) under the same id.
 */
function switchable() {
  const down = { value: true };
  const sent: LiveBatch[] = [];
  const transport = async (batch: LiveBatch) => {
    if (down.value) throw new TypeError("fetch failed: the network is down");
    if (!sent.some((b) => b.id === batch.id)) sent.push(batch);
  };
  return { down, sent, transport };
}

/**
 * A stream on a nodeStorage outbox under `root` whose network is down stores `rounds` batches (one a round, of
 * `channels` x `perRound` points) and is aborted, as a process that ends with unsent batches: their ids in
 * outbox order, and its last status.
 */
async function leftInOutbox(root: string, name: string, rounds: number, channels: number, perRound: number) {
  const down = switchable();
  const a = createLiveStream({
    transport: down.transport,
    outbox: nodeStorage({ root }),
    name,
    maxBatchPoints: channels * perRound,
    backoffMs: 5,
    maxBackoffMs: 20,
  });
  streams.push(a);
  const stored: string[] = [];
  a.addEventListener("stored", (e) => stored.push((e as CustomEvent).detail.id));
  await produce(a, rounds, channels, perRound);
  await until(`${rounds} stored batches`, () => stored.length === rounds);
  await a.abort();
  return { stored, status: a.status() };
}

describe("live stream outbox, Node", () => {
  // With several batches in flight a fault may hit a request posted behind a failed one, whose answer is not
  // used (that batch is posted again): fewer failures are counted as retries, and every one still happens.
  it.each([
    [1, 8],
    [3, 1],
  ])(
    "1M points over 50 channels through resets, 500/503, timeouts, lost acks and a server down for a while, %i in flight: each point once in the table, acknowledged in order",
    async (maxInFlight, minRetries) => {
      const table = await telemetryTable(await tempRoot("table"));
      const fake = await faultServer(
        ["503", "reset", "ok", "500", "lost-ack", "slow", "ok", "reset", "503", "lost-ack"],
        table.accept,
      );
      fake.slowMs = 600;
      open.push(fake);
      const outbox = nodeStorage({ root: await tempRoot("faults"), fsync: false });
      const live = createLiveStream({
        url: fake.url,
        outbox,
        name: "faults",
        maxBatchPoints: 50_000,
        backoffMs: 5,
        maxBackoffMs: 100,
        requestTimeoutMs: 300, // shorter than the slow answer: that request is abandoned and re-sent
        maxInFlight,
      });
      streams.push(live);
      const events = { stored: 0, retry: 0 };
      const order = { stored: [] as string[], sent: [] as string[] };
      live.addEventListener("stored", (e) => {
        events.stored++;
        order.stored.push((e as CustomEvent<OutboxBatch>).detail.id);
      });
      live.addEventListener("sent", (e) => order.sent.push((e as CustomEvent<OutboxBatch>).detail.id));
      live.addEventListener("retry", () => events.retry++);
      await produce(live, 20, 50, 1000, async (round) => {
        if (round === 12) await fake.down(300); // nothing listens for 300 ms: connections refused
      });
      await live.close();
      const status = live.status();
      expect(status).toMatchObject({
        batchesSent: 20,
        pointsSent: 1_000_000,
        batchesInOutbox: 0,
        bytesInOutbox: 0,
        pointsBuffered: 0,
        batchesDropped: 0,
        online: true,
      });
      expect(events.stored).toBe(20);
      expect(status.retries).toBe(events.retry);
      expect(status.retries).toBeGreaterThanOrEqual(minRetries);
      expect(order.sent).toEqual(order.stored); // acknowledged in the order they were stored
      // the ingest endpoint appended each batch once, whatever was re-sent
      expect(await table.landed(50, 20_000)).toEqual({
        rows: 1_000_000,
        distinct: 1_000_000,
        inRange: 1_000_000,
      });
      // acknowledged batches left the outbox: no entry, no file
      expect((await outbox.catalog.current()).outboxes.faults?.batches).toEqual([]);
      expect(await outbox.files.list("outbox/")).toEqual([]);
    },
    60_000,
  );

  it("posts up to maxInFlight batches at once; answers are taken in order, and the batches behind a failure are posted again", async () => {
    // Batches are all in the outbox before the sender may post (the transport waits for `go`); the first
    // answers last, so later acknowledgements arrive first; the second fails once while the third succeeds.
    const outbox = memoryStorage();
    const index = new Map<string, number>();
    const posts: number[] = [];
    let active = 0;
    let most = 0;
    let failed = false;
    let go!: () => void;
    const started = new Promise<void>((r) => (go = r));
    const transport = async (batch: LiveBatch) => {
      await started;
      const i = index.get(batch.id)!;
      posts.push(i);
      most = Math.max(most, ++active);
      try {
        await new Promise((r) => setTimeout(r, i === 0 ? 80 : 10));
        if (i === 1 && !failed) {
          failed = true;
          throw new TypeError("fetch failed: connection reset");
        }
      } finally {
        active--;
      }
    };
    const live = createLiveStream({
      transport,
      outbox,
      name: "window",
      maxBatchPoints: 100,
      backoffMs: 5,
      maxBackoffMs: 20,
      maxInFlight: 3,
    });
    streams.push(live);
    const sent: number[] = [];
    live.addEventListener("stored", (e) => index.set((e as CustomEvent<OutboxBatch>).detail.id, index.size));
    live.addEventListener("sent", (e) => sent.push(index.get((e as CustomEvent<OutboxBatch>).detail.id)!));
    await produce(live, 6, 1, 100);
    await until("6 stored batches", () => index.size === 6);
    go();
    await live.flush();
    expect(most).toBe(3);
    expect(sent).toEqual([0, 1, 2, 3, 4, 5]);
    // 0, 1 (fails), 2 (answered, not taken) went out together; then 1 and 2 again, in order.
    expect(posts.slice(0, 3)).toEqual([0, 1, 2]);
    expect(posts.filter((i) => i === 1)).toHaveLength(2);
    expect(posts.filter((i) => i === 2)).toHaveLength(2);
    expect(posts.indexOf(1, 3)).toBeLessThan(posts.indexOf(2, 3));
    expect(live.status()).toMatchObject({ batchesSent: 6, batchesInOutbox: 0, retries: 1 });
    expect((await outbox.catalog.current()).outboxes.window?.batches).toEqual([]);
  });

  it("a memory outbox's batches are sent from the bytes it holds, never read back as copies, however many wait", async () => {
    // maxBufferedBatches bounds the sender's cache of batches read from a durable outbox; a memory outbox
    // holds the very bytes, so each read would only copy megabytes.
    const outbox = memoryStorage();
    const read = outbox.files.read.bind(outbox.files);
    let reads = 0;
    outbox.files.read = (path: string) => {
      reads++;
      return read(path);
    };
    let go!: () => void;
    const started = new Promise<void>((r) => (go = r));
    const sent: Uint8Array[] = [];
    const transport = async (batch: LiveBatch) => {
      await started;
      sent.push(batch.bytes);
    };
    const live = createLiveStream({
      transport,
      outbox,
      name: "held",
      maxBatchPoints: 100,
      maxBufferedBatches: 2,
    });
    streams.push(live);
    await produce(live, 6, 1, 100);
    await until("6 stored batches", () => live.status().batchesInOutbox === 6);
    go();
    await live.flush();
    expect(sent).toHaveLength(6);
    expect(reads).toBe(0);
    const counts = await countPoints(sent, 1, 600);
    expect([...counts[0]!].every((n) => n === 1)).toBe(true);
  });

  it("a new stream on the same outbox and name resends what was left, oldest first; the files are Avro streams Apache Avro reads", async () => {
    const root = await tempRoot("resume");
    const { stored, status } = await leftInOutbox(root, "resume", 5, 3, 100);
    expect(status).toMatchObject({ batchesInOutbox: 5, pointsInOutbox: 1500, batchesSent: 0 });

    // the outbox's files, read by Apache Avro (Python)
    const storage = nodeStorage({ root });
    const batches = (await storage.catalog.current()).outboxes.resume!.batches;
    expect(batches.map((b) => b.id)).toEqual(stored);
    const paths = batches.map((b) => storage.files.localPath!(b.path));
    const script =
      "import sys, avro.datafile, avro.io\n" +
      "for p in sys.argv[1:]:\n" +
      "  with avro.datafile.DataFileReader(open(p, 'rb'), avro.io.DatumReader()) as r:\n" +
      "    recs = list(r)\n" +
      "  print(r.get_meta('avro.codec').decode(), len(recs), sum(len(x['timestamps']) for x in recs), sorted(x['channel'] for x in recs))\n";
    const out = execFileSync(PYTHON, ["-c", script, ...paths], { encoding: "utf8" })
      .trim()
      .split("\n");
    expect(out).toEqual(Array(5).fill("snappy 3 300 ['ch0', 'ch1', 'ch2']"));

    // files no entry names: one left by a writer killed before its commit (an hour old), one a moment old
    // (maybe another process's batch about to be committed)
    await storage.files.write("outbox/resume/OLD-ORPHAN.avro", new Uint8Array([1]));
    await storage.files.write("outbox/resume/YOUNG-ORPHAN.avro", new Uint8Array([2]));
    const anHourAgo = new Date(Date.now() - 3_600_000);
    await utimes(storage.files.localPath!("outbox/resume/OLD-ORPHAN.avro"), anHourAgo, anHourAgo);

    // the "restarted" stream: a new storage instance on the folder, the same name, nothing enqueued
    const second = switchable();
    second.down.value = false;
    const b = createLiveStream({
      transport: second.transport,
      outbox: storage,
      name: "resume",
      backoffMs: 5,
    });
    streams.push(b);
    await b.close(); // flush waits for the resumed backlog too
    expect(second.sent.map((s) => s.id)).toEqual(stored);
    const counts = await countPoints(
      second.sent.map((s) => s.bytes),
      3,
      500,
    );
    expect(counts.every((c) => c.every((n) => n === 1))).toBe(true);
    expect(b.status()).toMatchObject({ batchesSent: 5, pointsSent: 1500, batchesInOutbox: 0 });
    // the old orphan was swept at start-up; the young one is left alone
    expect((await storage.files.list("outbox/")).map((f) => f.path)).toEqual([
      "outbox/resume/YOUNG-ORPHAN.avro",
    ]);
  }, 30_000);

  it("a resumed backlog is posted in outbox order while several are in flight, even when an older batch's file is slower to read", async () => {
    const root = await tempRoot("order");
    const { stored } = await leftInOutbox(root, "order", 6, 1, 50);

    // Every other batch's file takes 60 ms to read: reads finish out of order, requests must not.
    const storage = nodeStorage({ root });
    const slow = new Set(stored.filter((_, i) => i % 2 === 0));
    const files = new Proxy(storage.files, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (prop !== "read") return typeof value === "function" ? value.bind(target) : value;
        return async (path: string) => {
          if ([...slow].some((id) => path.includes(id))) await new Promise((r) => setTimeout(r, 60));
          return target.read(path);
        };
      },
    });
    const second = switchable();
    second.down.value = false;
    const b = createLiveStream({
      transport: second.transport,
      outbox: { ...storage, files, catalog: storage.catalog },
      name: "order",
      maxInFlight: 4,
    });
    streams.push(b);
    await b.close();
    expect(second.sent.map((s) => s.id)).toEqual(stored);
  }, 30_000);

  it('codec "null": the outbox keeps uncompressed Avro streams that Apache Avro reads, and sends them whole', async () => {
    const root = await tempRoot("null-codec");
    const link = switchable();
    const live = createLiveStream({
      transport: link.transport,
      outbox: nodeStorage({ root }),
      name: "plain",
      codec: "null",
      maxBatchPoints: 300,
      backoffMs: 5,
      maxBackoffMs: 20,
    });
    streams.push(live);
    await produce(live, 3, 3, 100);
    await until("3 stored batches", () => live.status().batchesInOutbox === 3);
    const storage = nodeStorage({ root });
    const batches = (await storage.catalog.current()).outboxes.plain!.batches;
    const script =
      "import sys, avro.datafile, avro.io\n" +
      "for p in sys.argv[1:]:\n" +
      "  with avro.datafile.DataFileReader(open(p, 'rb'), avro.io.DatumReader()) as r:\n" +
      "    recs = list(r)\n" +
      "  print(r.get_meta('avro.codec').decode(), sum(len(x['timestamps']) for x in recs), sum(sum(x['values']) for x in recs))\n";
    const paths = batches.map((b) => storage.files.localPath!(b.path));
    const out = execFileSync(PYTHON, ["-c", script, ...paths], { encoding: "utf8" })
      .trim()
      .split("\n");
    // round r holds values r*100 .. r*100+99 on each of 3 channels
    expect(out).toEqual([0, 1, 2].map((r) => `null 300 ${3 * (r * 10_000 + 4950)}.0`));
    link.down.value = false;
    await live.close();
    const counts = await countPoints(
      link.sent.map((b) => b.bytes),
      3,
      300,
    );
    expect(counts.every((c) => c.every((n) => n === 1))).toBe(true);
  }, 30_000);

  it("one sender at a time for two streams on one outbox; both streams' points arrive once", async () => {
    const fake = await faultServer(["503", "ok", "reset"]);
    open.push(fake);
    const outbox = memoryStorage();
    const options = {
      url: fake.url,
      outbox,
      name: "shared",
      maxBatchPoints: 200,
      backoffMs: 5,
      leaseMs: 2000,
    };
    const a = createLiveStream(options);
    const b = createLiveStream(options);
    streams.push(a, b);
    // a and b write disjoint channels of the same stream, interleaved
    for (let i = 0; i < 10; i++) {
      await a.writable();
      await b.writable();
      for (let c = 0; c < 2; c++)
        a.enqueueBatch(
          `ch${c}`,
          [...Array(100)].map((_, j) => BigInt(i * 100 + j) * 1000n),
          Array(100).fill(1),
        );
      for (let c = 2; c < 4; c++)
        b.enqueueBatch(
          `ch${c}`,
          [...Array(100)].map((_, j) => BigInt(i * 100 + j) * 1000n),
          Array(100).fill(2),
        );
    }
    await Promise.all([a.close(), b.close()]);
    expect(fake.maxConcurrent).toBe(1);
    const counts = await countPoints(fake.kept.values(), 4, 1000);
    expect(counts.every((c) => c.every((n) => n === 1))).toBe(true);
    expect(a.status().batchesSent + b.status().batchesSent).toBe(20);
  }, 30_000);
});

describe("live stream outbox at its cap", () => {
  /** Timestamps from here on all take 4 bytes, so these batches are all of one size. */
  const BASE = 10_000;

  /** Enqueues batch `round` of the cap tests: 1,000 points of ch0. */
  const oneBatch = (live: LiveStream, round: number) =>
    live.enqueueBatch(
      "ch0",
      BigInt64Array.from({ length: 1000 }, (_, j) => BigInt(BASE + round * 1000 + j) * 1000n),
      new Float64Array(1000),
    );

  /** A cap of three and a half of these batches (their sizes differ by a few bytes). */
  async function capOf3(): Promise<number> {
    const probe = createLiveStream({ transport: async () => {}, maxBatchPoints: 1000 });
    let size = 0;
    probe.addEventListener("stored", (e) => {
      size = (e as CustomEvent).detail.bytes;
    });
    oneBatch(probe, 5);
    await probe.close();
    return Math.floor(size * 3.5);
  }

  /** A stream of 1,000-point batches sent through `net`, its outbox capped at `cap` bytes. */
  function cappedStream(
    net: ReturnType<typeof switchable>,
    cap: number,
    options: Parameters<typeof createLiveStream>[0],
  ): LiveStream {
    const l = createLiveStream({
      transport: net.transport,
      outbox: memoryStorage(),
      maxOutboxBytes: cap,
      maxBatchPoints: 1000,
      backoffMs: 5,
      maxBackoffMs: 20,
      ...options,
    });
    streams.push(l);
    return l;
  }

  it("drop-oldest deletes the oldest unsent batches to take new ones, counting the loss and announcing it", async () => {
    const storage = memoryStorage();
    const net = switchable();
    const dropped: { batches: { id: string }[]; points: number }[] = [];
    const cap = await capOf3();
    const l2 = cappedStream(net, cap, { outbox: storage, name: "capped", outboxPolicy: "drop-oldest" });
    l2.addEventListener("dropped", (e) => dropped.push((e as CustomEvent).detail));
    const stored: string[] = [];
    l2.addEventListener("stored", (e) => stored.push((e as CustomEvent).detail.id));
    for (let round = 0; round < 10; round++) {
      await l2.writable();
      oneBatch(l2, round);
    }
    await until("10 stored", () => stored.length === 10);
    const s = l2.status();
    expect(s.batchesInOutbox).toBe(3);
    expect(s.bytesInOutbox).toBeLessThanOrEqual(cap);
    expect(s.batchesDropped).toBe(7);
    expect(s.pointsDropped).toBe(7000);
    expect(dropped.reduce((n, d) => n + d.batches.length, 0)).toBe(7);
    expect(dropped.reduce((n, d) => n + d.points, 0)).toBe(7000);
    // the loss is kept by the outbox's catalog: a later stream of the name sees it too
    expect((await storage.catalog.current()).outboxes.capped).toMatchObject({
      droppedBatches: 7,
      droppedPoints: 7000,
    });
    net.down.value = false;
    await l2.close();
    // what was not dropped arrives, once; the dropped ids never do
    const sentIds = net.sent.map((b) => b.id);
    const droppedIds = dropped.flatMap((d) => d.batches.map((b) => b.id));
    expect(sentIds.filter((id) => droppedIds.includes(id))).toEqual([]);
    expect(net.sent.reduce((n, b) => n + b.points, 0) + l2.status().pointsDropped).toBe(10_000);
    expect(await storage.files.list("outbox/capped/")).toEqual([]);
  }, 30_000);

  it('"error" refuses new points with QUOTA_EXCEEDED while the outbox is full, and takes them again once it drains', async () => {
    const net = switchable();
    const l = cappedStream(net, await capOf3(), { outboxPolicy: "error" });
    const full: unknown[] = [];
    l.addEventListener("full", (e) => full.push((e as CustomEvent).detail));
    let accepted = 0;
    let refusal: unknown;
    for (let round = 0; round < 20 && !refusal; round++) {
      try {
        oneBatch(l, accepted / 1000);
        accepted += 1000;
      } catch (err) {
        refusal = err;
      }
      await new Promise((r) => setTimeout(r, 30));
    }
    await expectAvaError(() => Promise.reject(refusal), "QUOTA_EXCEEDED", /outboxPolicy "error"/);
    expect(full).toHaveLength(1);
    expect(full[0]).toMatchObject({ policy: "error" });
    expect(l.status()).toMatchObject({ full: true, batchesInOutbox: 3, batchesDropped: 0 });
    net.down.value = false;
    await l.writable(); // the outbox drains: points are taken again
    l.enqueueBatch("ch0", [BigInt(BASE + accepted) * 1000n], [0]);
    await l.close();
    // every accepted point arrived once; nothing was dropped
    const counts = await countPoints(
      net.sent.map((b) => b.bytes),
      1,
      BASE + accepted + 1,
    );
    expect(counts[0]!.subarray(BASE).every((n) => n === 1)).toBe(true);
    expect(l.status()).toMatchObject({ full: false, pointsSent: accepted + 1, batchesDropped: 0 });
  }, 30_000);

  it('"block" keeps new batches in memory until there is room, refusing only when memory is full too', async () => {
    const net = switchable();
    const l = cappedStream(net, await capOf3(), { outboxPolicy: "block", maxBufferedBatches: 2 });
    let accepted = 0;
    let refusal: unknown;
    for (let round = 0; round < 20 && !refusal; round++) {
      try {
        oneBatch(l, accepted / 1000);
        accepted += 1000;
      } catch (err) {
        refusal = err;
      }
      await new Promise((r) => setTimeout(r, 30));
    }
    await expectAvaError(() => Promise.reject(refusal), "QUOTA_EXCEEDED", /wait in memory for room/);
    expect(accepted).toBe(5000); // 3 in the outbox + 2 waiting in memory
    expect(l.status()).toMatchObject({
      full: true,
      batchesInOutbox: 3,
      batchesBuffered: 2,
      pointsBuffered: 2000,
    });
    const writable = l.writable();
    net.down.value = false;
    await writable;
    await l.close();
    const counts = await countPoints(
      net.sent.map((b) => b.bytes),
      1,
      BASE + accepted,
    );
    expect(counts[0]!.subarray(BASE).every((n) => n === 1)).toBe(true);
    expect(l.status()).toMatchObject({ pointsSent: accepted, batchesDropped: 0, full: false });
  }, 30_000);
});

describe("live stream outbox, bad input", () => {
  it("refuses bad outbox options at once with INVALID_ARGUMENT (or INVALID_NAME), storing nothing", async () => {
    const transport = async () => {};
    const storage = memoryStorage();
    const bad = (options: object, code: "INVALID_ARGUMENT" | "INVALID_NAME", pattern: RegExp) =>
      expectAvaError(() => createLiveStream({ transport, ...options }), code, pattern);
    await bad({ outbox: {} }, "INVALID_ARGUMENT", /outbox must be an avalanche storage/);
    await bad({ outbox: "/tmp/x" }, "INVALID_ARGUMENT", /outbox must be an avalanche storage/);
    await bad(
      { outbox: storage, outboxPolicy: "drop-newest" },
      "INVALID_ARGUMENT",
      /outboxPolicy "drop-newest"/,
    );
    await bad({ outbox: storage, maxOutboxBytes: -1 }, "INVALID_ARGUMENT", /maxOutboxBytes/);
    await bad({ outbox: storage, maxOutboxBytes: 1.5 }, "INVALID_ARGUMENT", /maxOutboxBytes/);
    await bad({ maxBufferedBatches: 0 }, "INVALID_ARGUMENT", /maxBufferedBatches/);
    await bad({ maxInFlight: 0 }, "INVALID_ARGUMENT", /maxInFlight must be a positive integer/);
    await bad({ maxInFlight: 2.5 }, "INVALID_ARGUMENT", /maxInFlight/);
    await bad({ maxBatchPoints: Number.NaN }, "INVALID_ARGUMENT", /maxBatchPoints/);
    await bad({ leaseMs: "10s" }, "INVALID_ARGUMENT", /leaseMs/);
    await bad({ backoffMs: -5 }, "INVALID_ARGUMENT", /backoffMs/);
    await bad({ codec: "zstandard" }, "INVALID_ARGUMENT", /codec "zstandard".*read, not written/);
    await bad({ codec: "lz4" }, "INVALID_ARGUMENT", /codec "lz4".*null, deflate, snappy/);
    await bad({ outbox: storage, name: "../etc" }, "INVALID_NAME", /live stream name/);
    await expectAvaError(() => createLiveStream(null as never), "INVALID_ARGUMENT", /options object/);
    expect((await storage.catalog.current()).version).toBe(0);
    expect(await storage.files.list("")).toEqual([]);
  });
});

describe("live stream outbox across a SIGKILL", () => {
  const CHILD = join(import.meta.dirname, "fixtures", "live-child.ts");
  const start = (root: string, url: string, mode: string) =>
    spawn(process.execPath, ["--import", "tsx", CHILD, root, url, mode], {
      stdio: ["ignore", "pipe", "pipe"],
    });

  it("a sender killed mid-stream (a batch committed by the server, unacknowledged) resumes on restart: nothing lost, nothing twice", async () => {
    const table = await telemetryTable(await tempRoot("killed-table"));
    const fake = await faultServer(Array(1000).fill("slow"), table.accept);
    fake.slowMs = 100;
    open.push(fake);
    const root = await tempRoot("killed");
    const child = start(root, fake.url, "stream");
    let stderr = "";
    child.stderr!.on("data", (d) => {
      stderr += d;
    });
    const stored: { id: string; points: number }[] = [];
    let out = "";
    child.stdout!.on("data", (d) => {
      out += d;
      const lines = out.split("\n");
      out = lines.pop()!;
      for (const line of lines) {
        const [what, id, points] = line.split(" ");
        if (what === "stored") stored.push({ id: id!, points: Number(points) });
      }
    });
    const exited = new Promise<string | null>((r) => child.on("exit", (_, signal) => r(signal)));
    // mid-stream: batches stored, some sent, and one committed by the server whose answer is held back
    await until(
      "a held-back answer after 6 stored batches",
      () => (stored.length >= 6 && fake.requests.length >= 3 && fake.holding > 0) || child.exitCode !== null,
      30_000,
    );
    expect(stderr).toBe("");
    child.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    const heldKey = fake.requests.at(-1)!.key;

    const resumed = start(root, fake.url, "resume");
    let resumedOut = "";
    let resumedErr = "";
    resumed.stdout!.on("data", (d) => {
      resumedOut += d;
    });
    resumed.stderr!.on("data", (d) => {
      resumedErr += d;
    });
    const code = await new Promise<number | null>((r) => resumed.on("exit", (c) => r(c)));
    expect(resumedErr).toBe("");
    expect(code).toBe(0);
    expect(resumedOut).toMatch(/^done \d+\n$/);

    // the batch the server had committed without answering was sent again and acknowledged, not appended
    expect(fake.requests.filter((r) => r.key === heldKey).length).toBeGreaterThanOrEqual(2);
    // every stored batch is in the table; the points form one gapless prefix of each channel, each once
    const storedPoints = stored.reduce((n, b) => n + b.points, 0);
    const { rows } = await table.landed(10, 1);
    expect(rows).toBeGreaterThanOrEqual(storedPoints);
    expect(rows % 10_000).toBe(0);
    expect(await table.landed(10, rows / 10)).toEqual({ rows, distinct: rows, inRange: rows });
    const after = await nodeStorage({ root }).catalog.current();
    expect(after.outboxes.killed!.batches).toEqual([]);
  }, 60_000);
});
