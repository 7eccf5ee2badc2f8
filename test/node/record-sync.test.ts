// RecordSync: a catalog record's fdatasync runs on the calling thread while the disk answers fast, moves to
// the thread pool once it is slow, comes back once it is fast again, and yields to the event loop either
// way. The real fdatasync on a real file, and stand-in calls whose duration the test sets (a disk's speed
// is what no test machine can be made to have on demand).
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { RecordSync, type RecordSyncCalls, SYNC_BUDGET_MS } from "../../src/storage/node/record-sync.js";

/** Calls that count where they ran; `here` takes `ms` (busy: the calling thread is held, as fdatasync holds it). */
function counted(ms: { value: number }) {
  const count = { here: 0, pooled: 0 };
  const calls: RecordSyncCalls = {
    here() {
      count.here++;
      const until = performance.now() + ms.value;
      while (performance.now() < until);
    },
    async pooled() {
      count.pooled++;
      await new Promise((resolve) => (ms.value ? setTimeout(resolve, ms.value) : setImmediate(resolve)));
    },
  };
  return { calls, count };
}

it("syncs a real file, and the bytes are there", async () => {
  const dir = await mkdtemp(join(tmpdir(), "ava-record-sync-"));
  try {
    const fd = openSync(join(dir, "f"), "w");
    const sync = new RecordSync();
    for (let i = 0; i < 5; i++) {
      writeSync(fd, `record ${i}\n`);
      await sync.sync(fd);
    }
    closeSync(fd);
    expect(readFileSync(join(dir, "f"), "utf8").split("\n")).toHaveLength(6);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

it("moves to the thread pool while the disk is slow, and back once it is fast", async () => {
  const ms = { value: 0 };
  const { calls, count } = counted(ms);
  const sync = new RecordSync(calls);
  for (let i = 0; i < 5; i++) await sync.sync(1);
  expect(count).toEqual({ here: 5, pooled: 0 });

  ms.value = SYNC_BUDGET_MS * 4; // a slow disk: the calling thread is held only until the average says so
  for (let i = 0; i < 10; i++) await sync.sync(1);
  expect(count.here).toBeLessThanOrEqual(5 + 3);
  expect(count.pooled).toBeGreaterThanOrEqual(7);
  expect(sync.onCallingThread).toBe(false);

  ms.value = 0; // fast again: a few quick ones bring it back
  for (let i = 0; i < 20; i++) await sync.sync(1);
  expect(sync.onCallingThread).toBe(true);
  expect(count.here).toBeGreaterThan(8);
});

it("a failed fdatasync rejects with its error, on either thread", async () => {
  const eio = Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" });
  const sync = new RecordSync({
    here: () => {
      throw eio;
    },
    pooled: () => Promise.reject(eio),
  });
  await expect(sync.sync(1)).rejects.toBe(eio);
  const slow = new RecordSync({
    here: () => {
      const until = performance.now() + SYNC_BUDGET_MS * 20;
      while (performance.now() < until);
      throw eio;
    },
    pooled: () => Promise.reject(eio),
  });
  await expect(slow.sync(1)).rejects.toBe(eio);
  expect(slow.onCallingThread).toBe(false); // the slow failure counted: the next one goes to the pool
  await expect(slow.sync(1)).rejects.toBe(eio);
});

it("yields to the event loop after each fdatasync on the calling thread", async () => {
  const { calls } = counted({ value: 0 });
  const sync = new RecordSync(calls);
  let timerRan = false;
  setTimeout(() => {
    timerRan = true;
  }, 0);
  const start = performance.now();
  // A loop of syncs that never yielded would hold the timer back until it ended.
  while (!timerRan && performance.now() - start < 2_000) await sync.sync(1);
  expect(timerRan).toBe(true);
});
