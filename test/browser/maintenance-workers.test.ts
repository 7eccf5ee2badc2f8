// Maintenance across Workers in real Chromium: compaction racing appends from 3 Workers (and a second
// compactor) loses and duplicates nothing; a Worker terminated mid-compaction leaves the state before it
// and an orphan that maintenance removes; one terminated mid-deletion after expiry leaves the expiry
// committed and the rest to the next run; one terminated between catalog cleanup's chunks of log
// deletions leaves a log that opens to the same state, which the next cleanup finishes; background
// maintenance runs in one context at a time (Web Lock).
import { describe, expect, it } from "vitest";
import { browserStorage } from "../../src/index.js";
import { openCatalogDB } from "../../src/storage/browser/indexeddb-log.js";
import { ulid } from "../../src/util/ids.js";
import { batchesOf, batchRows, Rel } from "../shared/rel.js";
import { request, startWriter, type WriterMessage } from "./worker-client.js";
import type { MaintainerRequest } from "./workers/rel-maintainer.worker.js";

type MaintainerMessage = WriterMessage & {
  compactions?: number;
  conflicts?: number;
  ran?: boolean;
  deleted?: number;
  held?: boolean;
};

function startMaintainer(): Worker {
  return new Worker(new URL("./workers/rel-maintainer.worker.ts", import.meta.url), { type: "module" });
}

function ask(worker: Worker, req: MaintainerRequest, until: (m: MaintainerMessage) => boolean) {
  return request(worker, req as never, until) as Promise<MaintainerMessage>;
}

/** `batches` appends of `rows` rows (10: inlined into the catalog; more: a data file each). */
async function seeded(batches: number, rows = 10) {
  const name = `mw${ulid()}`;
  const ns = await Rel.open({ storage: browserStorage({ name, persist: false }) });
  await ns.push();
  for (let b = 0; b < batches; b++) await ns.batches.append(batchRows("seed", b, rows));
  return { name, ns };
}

describe("maintenance across Workers", () => {
  it("2 compactor Workers racing appends from 3 Workers: every row exactly once", async () => {
    const { name, ns } = await seeded(4);
    const writers = [0, 1, 2].map(() => startWriter());
    const compactors = [0, 1].map(() => startMaintainer());
    try {
      const [results] = await Promise.all([
        Promise.all(
          compactors.map((c) => ask(c, { cmd: "compact", name, rounds: 15 }, (m) => m.done === true)),
        ),
        ...writers.map((w, i) =>
          request(w, { cmd: "append", name, writer: `w${i}`, batches: 15, rows: 10 }, (m) => m.done === true),
        ),
      ]);
      expect(results.reduce((n, r) => n + (r.compactions ?? 0), 0)).toBeGreaterThan(0);
    } finally {
      for (const w of [...writers, ...compactors]) w.terminate();
    }
    const rows = await ns.batches.read();
    const perBatch = batchesOf(rows);
    expect(perBatch.size).toBe(4 + 3 * 15);
    expect([...perBatch.values()].every((n) => n === 10)).toBe(true);
    const history = await ns.batches.history();
    expect(history.filter((s) => s.operation === "append")).toHaveLength(49);
    for (const s of history.filter((_, i) => i % 6 === 0))
      expect((await ns.batches.read({ snapshotId: s.id })).numRows).toBe(s.totalRows);
  });

  it("a Worker terminated mid-compaction: the state before it; maintenance removes the orphan", async () => {
    const { name, ns } = await seeded(5);
    const before = (await ns.batches.history()).map((s) => s.id);
    const worker = startMaintainer();
    const held = await ask(worker, { cmd: "hold-compact", name }, (m) => m.written !== undefined);
    worker.terminate();
    expect((await ns.batches.history()).map((s) => s.id)).toEqual(before);
    expect((await ns.batches.read()).numRows).toBe(50);
    const files = () => ns.storage.files.list("data/").then((l) => l.map((f) => f.path));
    expect(await files()).toContain(held.written);
    const result = await ns.maintain({ graceMs: 0, orphanAgeMs: 0, compact: false, retain: false });
    expect(result.filesDeleted).toBe(1);
    expect(await files()).not.toContain(held.written);
    expect((await ns.batches.compact()).filesRemoved).toBe(5);
    expect((await ns.batches.read()).numRows).toBe(50);
  });

  it("a Worker terminated mid-deletion after expiry: the expiry holds, the next run deletes the rest", async () => {
    const { name, ns } = await seeded(6, 20); // data files, which expiry schedules for deletion
    await ns.batches.compact();
    const worker = startMaintainer();
    await ask(worker, { cmd: "hold-delete", name }, (m) => m.deleted !== undefined);
    worker.terminate();
    // The expiry committed before any file was deleted: only the compaction's snapshot is left, whole.
    expect((await ns.batches.history()).map((s) => s.operation)).toEqual(["compact"]);
    expect((await ns.batches.read()).numRows).toBe(120);
    const state = await ns.storage.catalog.current();
    const live = state.tables["rel.batches"]!.history.liveFiles.map((f) => f.path);
    expect(state.tables["rel.batches"]!.doomed).toHaveLength(6); // two already deleted, not yet forgotten
    const files = () => ns.storage.files.list("data/").then((l) => l.map((f) => f.path).sort());
    expect(await files()).toHaveLength(1 + 4);
    const result = await ns.maintain({ graceMs: 0, orphanAgeMs: 0, compact: false, retain: false });
    expect(result.filesDeleted).toBe(6);
    expect(await files()).toEqual(live.sort());
    expect((await ns.batches.read()).numRows).toBe(120);
  });

  it("a Worker terminated between cleanup's chunks of log deletions: the same state, the next cleanup ends it", async () => {
    const { name, ns } = await seeded(150);
    await ns.batches.inlineFlush.idle(); // the flush at 1,000 rows committed
    const db = await openCatalogDB(name);
    const keys = async () => ({
      log: await db.getAllKeys("log"),
      checkpoints: await db.getAllKeys("checkpoints"),
    });
    // A commit at version ~100 wrote a checkpoint in the background: cleanup removes the entries before it.
    while ((await keys()).checkpoints.length === 0) await new Promise((r) => setTimeout(r, 5));
    const before = await keys();
    const newest = before.checkpoints.at(-1)!;
    expect(newest).toBeGreaterThan(65);
    const history = (await ns.batches.history()).map((s) => s.id);
    const worker = startMaintainer();
    await ask(worker, { cmd: "hold-cleanup", name }, (m) => m.held === true);
    worker.terminate();
    const held = await keys();
    expect(held.checkpoints).toEqual([newest]); // any older ones went first, in their own store
    expect(held.log[0]).toBe(65); // one chunk of 64 entries, oldest first
    expect(held.log.at(-1)).toBe(before.log.at(-1));
    // Opening sees the same table, and so does the context that held the state all along.
    const fresh = await Rel.open({ storage: browserStorage({ name, persist: false }) });
    expect((await fresh.batches.history()).map((s) => s.id)).toEqual(history);
    expect((await fresh.batches.read()).numRows).toBe(1500);
    await ns.batches.append(batchRows("after", 0, 10));
    expect((await fresh.batches.read()).numRows).toBe(1510);
    const removed = await fresh.storage.catalog.cleanup!(0);
    expect(removed).toHaveLength(newest - 65);
    expect((await keys()).log[0]).toBe(newest);
    expect(batchesOf(await ns.batches.read()).size).toBe(151);
    db.close();
  });

  it("background maintenance runs in one context at a time: a held Web Lock makes the others skip", async () => {
    const { name, ns } = await seeded(4);
    const lock = `avalanche-maintenance:${JSON.stringify(ns.storage.descriptor)}:*`;
    const worker = startMaintainer();
    try {
      let release!: () => void;
      const holding = new Promise<void>((r) => {
        release = r;
      });
      let released!: Promise<unknown>;
      const acquired = new Promise<void>((ready) => {
        released = navigator.locks.request(lock, async () => {
          ready();
          await holding;
        });
      });
      await acquired;
      expect(await ask(worker, { cmd: "run-once", name }, (m) => m.done === true)).toMatchObject({
        ran: false,
      });
      expect(await ns.batches.history()).toHaveLength(4); // nothing was compacted
      release();
      await released;
      // The lock manager lives in the browser process; wait until it, not only this context, has freed it.
      while ((await navigator.locks.query()).held?.some((l) => l.name === lock))
        await new Promise((r) => setTimeout(r, 5));
      expect(await ask(worker, { cmd: "run-once", name }, (m) => m.done === true)).toMatchObject({
        ran: true,
      });
      expect((await ns.batches.currentSnapshot())!.operation).toBe("compact");
    } finally {
      worker.terminate();
    }
  });
});
