// The IndexedDB catalog's checkpoints are put by a helper Worker (checkpoint-put-worker.ts), off the
// appender's thread: the bytes land whole under their version, a catalog opens from them to the same
// state, a helper killed mid-put leaves the checkpoint whole or absent (and the catalog then puts it
// itself), a database that does not exist is never created by the helper, and where the helper cannot
// load (a CSP refusing blob: Workers) checkpoints are put as before.
import { afterEach, expect, it, vi } from "vitest";
import { browserStorage } from "../../src/index.js";
import { CheckpointPutWorker, checkpointWriter } from "../../src/storage/browser/checkpoint-put-worker.js";
import { IndexedDbLog, openCatalogDB } from "../../src/storage/browser/indexeddb-log.js";
import { ulid } from "../../src/util/ids.js";
import { batchRows, Rel } from "../shared/rel.js";

afterEach(() => {
  vi.unstubAllGlobals();
});

function bytesOf(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 31 + seed) & 255;
  return out;
}

async function settled(p: Promise<unknown>): Promise<boolean> {
  const marker = Symbol();
  return (
    (await Promise.race([
      p.then(
        () => true,
        () => true,
      ),
      Promise.resolve(marker),
    ])) !== marker
  );
}

it("a catalog's checkpoints are put by the helper Worker, and a fresh open reads the same state from them", async () => {
  const name = `cp${ulid()}`;
  const ns = await Rel.open({ storage: browserStorage({ name, persist: false }) });
  await ns.push();
  const before = checkpointWriter().written;
  for (let i = 0; i < 110; i++) await ns.batches.append(batchRows(`r${i}`, 0, 2));
  const db = await openCatalogDB(name);
  // The commit at version 100 had the helper write it, in the background (it answers once it is in).
  while (checkpointWriter().written === before) await new Promise((r) => setTimeout(r, 5));
  const [version] = await db.getAllKeys("checkpoints");
  expect(version).toBeGreaterThanOrEqual(100);
  db.close();
  const fresh = await Rel.open({ storage: browserStorage({ name, persist: false }) });
  expect((await fresh.batches.history()).map((s) => s.id)).toEqual(
    (await ns.batches.history()).map((s) => s.id),
  );
  expect((await fresh.batches.read()).numRows).toBe(220);
});

it("a helper killed mid-put leaves the checkpoint whole or absent; the catalog then puts it itself", async () => {
  const name = `cp${ulid()}`;
  const db = await openCatalogDB(name);
  const big = bytesOf(4_000_000, 1);
  // The bare helper, killed while it holds the put: nothing half-written.
  const helper = new CheckpointPutWorker();
  const putting = helper.put(db.name, "checkpoints", 5, big);
  while (helper.pending === 0 && !(await settled(putting))) await new Promise((r) => setTimeout(r, 0));
  helper.terminate();
  const outcome = await putting.then(
    () => "written",
    (err: unknown) => err,
  );
  const left = await db.get("checkpoints", 5);
  if (outcome === "written") expect(left).toEqual(big);
  else {
    expect((outcome as { code?: string }).code).toBe("IO_ERROR");
    if (left !== undefined) expect(left).toEqual(big); // committed just before the kill
  }
  // Through the catalog's log: the shared helper killed midway, the put still lands, and the next one
  // starts a new helper.
  const log = new IndexedDbLog(() => Promise.resolve(db), "default", name);
  const writing = log.writeCheckpoint(7, bytesOf(4_000_000, 2));
  while (checkpointWriter().pending === 0 && !(await settled(writing)))
    await new Promise((r) => setTimeout(r, 0));
  checkpointWriter().terminate();
  await writing;
  expect(await db.get("checkpoints", 7)).toEqual(bytesOf(4_000_000, 2));
  const written = checkpointWriter().written;
  await log.writeCheckpoint(8, bytesOf(1000, 3));
  expect(checkpointWriter().written).toBe(written + 1);
  expect(await db.get("checkpoints", 8)).toEqual(bytesOf(1000, 3));
  db.close();
});

it("never creates a database: a put into one that does not exist fails and leaves none", async () => {
  const missing = `avalanche:cp-missing-${ulid()}`;
  const helper = new CheckpointPutWorker();
  await expect(helper.put(missing, "checkpoints", 1, bytesOf(10, 4))).rejects.toThrow();
  expect((await indexedDB.databases()).map((d) => d.name)).not.toContain(missing);
  helper.terminate();
});

it("where the helper cannot load (a CSP refusing blob: Workers), checkpoints are put as before", async () => {
  // A Worker whose script is refused fails to load with an error event, as under such a CSP.
  class RefusedWorker extends EventTarget {
    onmessage: unknown = null;
    onerror: ((e: ErrorEvent) => void) | null = null;
    constructor() {
      super();
      setTimeout(() => this.onerror?.(new ErrorEvent("error", { message: "refused by CSP" })), 0);
    }
    postMessage() {}
    terminate() {}
  }
  checkpointWriter().terminate(); // the next put starts a Worker: the refused one
  vi.stubGlobal("Worker", RefusedWorker);
  const name = `cp${ulid()}`;
  const db = await openCatalogDB(name);
  const log = new IndexedDbLog(() => Promise.resolve(db), "default", name);
  const written = checkpointWriter().written;
  await log.writeCheckpoint(3, bytesOf(200_000, 5));
  expect(checkpointWriter().available).toBe(false);
  await log.writeCheckpoint(4, bytesOf(200_000, 6));
  expect(checkpointWriter().written).toBe(written);
  expect(await db.get("checkpoints", 3)).toEqual(bytesOf(200_000, 5));
  expect(await db.get("checkpoints", 4)).toEqual(bytesOf(200_000, 6));
  db.close();
});

it("a helper whose Worker cannot even be constructed rejects the put (it does not throw), so the catalog can put it", async () => {
  // Some pages refuse the Worker in its constructor (a SecurityError) rather than by a failed load.
  class ThrowingWorker {
    constructor() {
      throw new DOMException("refused by CSP", "SecurityError");
    }
  }
  vi.stubGlobal("Worker", ThrowingWorker);
  const helper = new CheckpointPutWorker();
  let put: Promise<void> | undefined;
  expect(() => {
    put = helper.put("no-such-db", "checkpoints", 1, bytesOf(10, 1));
  }).not.toThrow();
  await expect(put).rejects.toThrow(/refused by CSP/);
  expect(helper.available).toBe(false);
});
