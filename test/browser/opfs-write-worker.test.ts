// A page's main-thread OPFS writes of big files go through the page's writer Worker (a sync access handle,
// opfs-write-worker.ts): the bytes land whole and flushed, a file that exists is refused and left alone, a
// Worker killed mid-write leaves no file behind, one that cannot load sends writes back to createWritable,
// and a live stream whose writer Worker dies again and again still delivers every batch once, in order.
import { afterEach, expect, it, vi } from "vitest";
import { createLiveStream, type LiveBatch } from "../../src/avro.js";
import { browserStorage } from "../../src/index.js";
import { OpfsWriteWorker, pageWriter } from "../../src/storage/browser/opfs-write-worker.js";
import { ulid } from "../../src/util/ids.js";
import { expectAvaError } from "../shared/fixtures.js";

const freshStorage = () => browserStorage({ name: `w${ulid()}`, persist: false });
function bytesOf(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 31 + seed) & 255;
  return out;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

it("writes a big main-thread file through the Worker, whole, and refuses to overwrite it", async () => {
  const storage = freshStorage();
  const before = pageWriter().written;
  const big = bytesOf(300_000, 1);
  await storage.files.write("a/big.bin", big);
  expect(pageWriter().written).toBe(before + 1);
  expect(await storage.files.read("a/big.bin")).toEqual(big);
  // The caller's bytes are its own still (the Worker got a copy).
  expect(big.length).toBe(300_000);
  await expectAvaError(storage.files.write("a/big.bin", bytesOf(300_000, 2)), "IO_ERROR", /already exists/);
  expect(await storage.files.read("a/big.bin")).toEqual(big);
  // Small files and files that must appear whole stay on createWritable.
  await storage.files.write("a/small.bin", bytesOf(100, 3));
  await storage.files.write("a/whole.bin", bytesOf(300_000, 4), { whole: true });
  expect(pageWriter().written).toBe(before + 1);
  expect(await storage.files.read("a/whole.bin")).toEqual(bytesOf(300_000, 4));
  await expectAvaError(storage.files.write("a/../x.bin", big), "INVALID_NAME");
});

it("leaves no file behind when the Worker is killed mid-write, and starts a new one for the next", async () => {
  const storage = freshStorage();
  const writing = storage.files.write("k/killed.bin", bytesOf(2_000_000, 5));
  // Killed once the Worker holds the write (or, on a slow machine, after the write already finished).
  while (pageWriter().pending === 0 && !(await settled(writing))) await new Promise((r) => setTimeout(r, 0));
  pageWriter().terminate();
  const outcome = await writing.then(
    () => "written",
    (err: unknown) => err,
  );
  if (outcome === "written") expect(await storage.files.read("k/killed.bin")).toEqual(bytesOf(2_000_000, 5));
  else {
    expect((outcome as { code?: string }).code).toBe("IO_ERROR");
    await expectAvaError(storage.files.read("k/killed.bin"), "NOT_FOUND");
  }
  await storage.files.write("k/next.bin", bytesOf(200_000, 6));
  expect(await storage.files.read("k/next.bin")).toEqual(bytesOf(200_000, 6));
});

it("a Worker that cannot load fails its write with IO_ERROR and is not tried again", async () => {
  class Unloadable {
    onerror: ((e: { message: string; preventDefault(): void }) => void) | undefined;
    onmessage: unknown;
    constructor() {
      setTimeout(() => this.onerror?.({ message: "", preventDefault() {} }), 0);
    }
    postMessage() {}
    terminate() {}
  }
  vi.stubGlobal("Worker", Unloadable);
  const writer = new OpfsWriteWorker();
  const root = await navigator.storage.getDirectory();
  const handle = await root.getFileHandle(`unloadable-${ulid()}`, { create: true });
  await expectAvaError(writer.write(handle, bytesOf(100_000, 7)), "IO_ERROR", /did not start/);
  expect(writer.available).toBe(false);
  await root.removeEntry(handle.name);
});

it("a live stream whose writer Worker keeps dying delivers every batch once, in order", async () => {
  const storage = freshStorage();
  const received: string[] = [];
  const live = createLiveStream({
    outbox: storage,
    transport: async (b: LiveBatch) => void received.push(b.id),
    maxBatchPoints: 20_000,
    maxDelayMs: 60_000,
    backoffMs: 1,
    maxBackoffMs: 5,
  });
  const stored: string[] = [];
  live.addEventListener("stored", (e: Event) => stored.push((e as CustomEvent<{ id: string }>).detail.id));
  const before = pageWriter().written;
  const ts = BigInt64Array.from({ length: 10_000 }, (_, i) => BigInt(i) * 1000n);
  const values = Float64Array.from({ length: 10_000 }, (_, i) => Math.sin(i));
  for (let round = 0; round < 12; round++) {
    await live.writable();
    live.enqueueBatch("a", ts, values);
    live.enqueueBatch("b", ts, values);
    if (round % 3 === 1) pageWriter().terminate(); // whatever it was writing fails, or had finished
  }
  await live.close();
  expect(stored).toHaveLength(12);
  expect(received).toEqual(stored);
  expect(pageWriter().written).toBeGreaterThan(before); // the batches went through the Worker
  expect(live.status().pointsSent).toBe(12 * 20_000);
  expect((await storage.catalog.current()).outboxes.live?.batches ?? []).toEqual([]);
  expect(await storage.files.list("outbox/")).toEqual([]);
});

async function settled(p: Promise<unknown>): Promise<boolean> {
  const mark = Symbol();
  return (
    (await Promise.race([
      p.then(
        () => true,
        () => true,
      ),
      Promise.resolve(mark),
    ])) !== mark
  );
}
