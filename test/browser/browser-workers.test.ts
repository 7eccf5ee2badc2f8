// browserStorage across contexts of one origin, in real Chromium: Workers and the page share one storage
// by name; racing appends lose nothing; a Worker terminated at any point leaves no partial snapshot.
import { describe, expect, it } from "vitest";
import { browserStorage } from "../../src/index.js";
import { ulid } from "../../src/util/ids.js";
import { batchRows, batchesOf, Rel } from "../shared/rel.js";
import { request, startWriter } from "./worker-client.js";

const freshName = () => `w${ulid()}`;

async function openRel(name: string) {
  const ns = await Rel.open({ storage: browserStorage({ name, persist: false }) });
  await ns.push();
  return ns;
}

describe("browserStorage across Workers and the page", () => {
  it("another context sees every committed snapshot", async () => {
    const name = freshName();
    const ns = await openRel(name);
    for (let b = 0; b < 5; b++) await ns.batches.append(batchRows("page", b, 100));
    const worker = startWriter();
    try {
      const seen = await request(worker, { cmd: "inspect", name }, (m) => m.snapshots !== undefined);
      expect(seen).toMatchObject({ snapshots: 5, rows: 500, batches: 5 });
      // And the other way round: what a Worker commits, the page sees.
      await request(
        worker,
        { cmd: "append", name, writer: "worker", batches: 3, rows: 50 },
        (m) => m.done === true,
      );
      expect((await ns.batches.history()).length).toBe(8);
      expect((await ns.batches.read()).numRows).toBe(650);
    } finally {
      worker.terminate();
    }
  });

  it("3 Workers and the page append 25 batches each at once: 100 snapshots, every row exactly once", async () => {
    const name = freshName();
    const ns = await openRel(name);
    const workers = [0, 1, 2].map(() => startWriter());
    try {
      await Promise.all([
        ...workers.map((w, i) =>
          request(w, { cmd: "append", name, writer: `w${i}`, batches: 25, rows: 40 }, (m) => m.done === true),
        ),
        (async () => {
          for (let b = 0; b < 25; b++) await ns.batches.append(batchRows("page", b, 40));
        })(),
      ]);
    } finally {
      for (const w of workers) w.terminate();
    }
    const history = await ns.batches.history();
    expect(history.map((s) => s.sequenceNumber)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    const rows = await ns.batches.read();
    expect(rows.numRows).toBe(100 * 40);
    const perBatch = batchesOf(rows);
    expect(perBatch.size).toBe(100);
    expect([...perBatch.values()].every((n) => n === 40)).toBe(true);
  });

  it("a Worker terminated mid-append, 20 times: every committed snapshot reads whole; vacuum removes the orphans", async () => {
    const name = freshName();
    const ns = await openRel(name);
    const rowsPerBatch = 2_000;
    let orphansMade = 0;
    // Each round's Worker boots (its modules, parquet-wasm) while the round before it runs: booting was
    // most of a round's time.
    let next = startWriter();
    for (let round = 0; round < 20; round++) {
      // Even rounds: terminated by a random timer. Odd rounds: terminated between a data file write and its commit.
      const holdAfterWrite = round % 2 === 1;
      const worker = next;
      next = startWriter();
      const req = {
        cmd: "append",
        name,
        writer: `k${round}`,
        batches: 0,
        rows: rowsPerBatch,
        holdAfterWrite,
      } as const;
      await request(worker, req, (m) => (holdAfterWrite ? m.written !== undefined : m.committed === 0));
      if (holdAfterWrite) orphansMade++;
      else await new Promise((r) => setTimeout(r, Math.random() * 100));
      worker.terminate();

      // A fresh storage instance, as after a reload: the table opens and each batch is whole.
      const reopened = await openRel(name);
      const history = await reopened.batches.history();
      const rows = await reopened.batches.read();
      expect(rows.numRows).toBe(history.at(-1)!.totalRows);
      const perBatch = batchesOf(rows);
      expect(perBatch.size).toBe(history.length);
      expect([...perBatch.values()].every((n) => n === rowsPerBatch)).toBe(true);
    }
    next.terminate();

    const history = await ns.batches.history();
    expect(history.length).toBeGreaterThanOrEqual(20);
    for (const s of history.filter((_, i) => i % 4 === 0)) {
      expect((await ns.batches.read({ snapshotId: s.id })).numRows).toBe(s.totalRows);
    }
    const referenced = new Set(history.flatMap((s) => s.addedFiles.map((f) => f.path)));
    const { removed } = await ns.vacuum({ olderThanMs: 0 });
    expect(removed.length).toBeGreaterThanOrEqual(orphansMade);
    const onDisk = (await ns.storage.files.list("data/")).map((f) => f.path);
    expect(new Set(onDisk)).toEqual(referenced);
    expect((await ns.batches.read()).numRows).toBe(history.at(-1)!.totalRows);
  }, 180_000);
});
