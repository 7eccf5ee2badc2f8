// Reliability of nodeStorage across processes: racing writers lose nothing, and a writer killed with
// SIGKILL at any point leaves either the old state or the new one, never a partial snapshot.
import type { ChildProcess } from "node:child_process";
import { mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Snapshot } from "../../src/index.js";
import { nodeStorage } from "../../src/node.js";
import { Library } from "../shared/append-scan-flows.js";
import { batchesOf, Rel } from "../shared/rel.js";
import { exited, firstLine, startTsx } from "./fixtures/child-process.js";

const CHILD = join(import.meta.dirname, "fixtures", "append-child.ts");

function startWriter(root: string, writer: string, batches: number, rows: number, mode = ""): ChildProcess {
  return startTsx(CHILD, [root, writer, String(batches), String(rows), mode]);
}

async function openRel(root: string) {
  const ns = await Rel.open({ storage: nodeStorage({ root }) });
  await ns.push();
  return ns;
}

/**
 * The table's append snapshots: one per committed batch. The history may hold others — the background
 * flush of inlined rows, due once 1,000 are inlined (the 200th batch of 5 rows), commits a "compact"
 * snapshot that changes no row, and it can land before a writer is killed or not.
 */
function appendsIn(history: readonly Snapshot[]): number {
  return history.filter((s) => s.operation === "append").length;
}

describe("append_scan across processes", () => {
  it("two processes consuming one stream at once: every document chunked exactly once", async () => {
    const root = await mkdtemp(join(tmpdir(), "ava-scan-race-"));
    const ns = await Library.open({ storage: nodeStorage({ root, fsync: false }) });
    await ns.push();
    for (let i = 0; i < 15; i++) await ns.documents.append([{ doc_id: `d${i}`, text: `document ${i} text` }]);
    const child = join(import.meta.dirname, "fixtures", "consume-child.ts");
    const start = () => startTsx(child, [root, "15"]);
    const outputs = await Promise.all(
      [start(), start()].map(async (c) => {
        let out = "";
        c.stdout!.on("data", (d) => {
          out += d;
        });
        const r = await exited(c);
        expect(r, r.stderr).toMatchObject({ code: 0 });
        return JSON.parse(out) as { committed: number; lost: number };
      }),
    );
    const keys = (await ns.chunks.scan({ columns: ["doc_id", "chunk"] }).toObjects()).map(
      (r) => `${r.doc_id}/${r.chunk}`,
    );
    expect(new Set(keys).size).toBe(keys.length); // no chunk twice
    expect(new Set(keys.map((k) => k.split("/")[0])).size).toBe(15); // every document
    expect(outputs.reduce((n, o) => n + o.committed, 0)).toBe(15); // one committed run a snapshot
  }, 120_000);
});

describe("nodeStorage across processes", () => {
  it("4 processes appending 50 batches each at once: 200 snapshots, every row exactly once", async () => {
    const root = await mkdtemp(join(tmpdir(), "ava-race-"));
    await openRel(root);
    const results = await Promise.all(
      ["w0", "w1", "w2", "w3"].map((w) => exited(startWriter(root, w, 50, 20))),
    );
    for (const r of results) expect(r, r.stderr).toMatchObject({ code: 0 });

    const ns = await openRel(root);
    const history = await ns.batches.history();
    expect(history).toHaveLength(200);
    expect(history.map((s) => s.sequenceNumber)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    const rows = (await ns.batches.read()).toArray().map((r) => `${r.writer}/${r.batch}/${r.row}`);
    expect(rows).toHaveLength(4 * 50 * 20);
    expect(new Set(rows).size).toBe(rows.length);
  }, 120_000);

  it("SIGKILL mid group commit (8 appenders in one process), 6 times: every acknowledged append once, whole", async () => {
    const root = await mkdtemp(join(tmpdir(), "ava-group-crash-"));
    await openRel(root);
    const acked = new Set<string>();
    for (let round = 0; round < 6; round++) {
      const child = startWriter(root, `g${round}`, 0, 5, "group");
      let out = "";
      child.stdout!.on("data", (d) => {
        out += d;
      });
      const done = exited(child);
      await firstLine(child);
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 200));
      child.kill("SIGKILL");
      expect((await done).signal).toBe("SIGKILL");
      for (const m of out.matchAll(/^ack (\S+)$/gm)) acked.add(m[1]!);
      // A fresh instance, as after a restart: each snapshot is one whole batch, none twice, none acked lost.
      const ns = await openRel(root);
      const history = await ns.batches.history();
      const last = await ns.batches.read();
      expect(last.numRows).toBe(history.at(-1)!.totalRows);
      const perBatch = batchesOf(last);
      for (const [key, n] of perBatch) expect(n, key).toBe(Number(key.split("/")[1]) % 4 === 3 ? 12 : 5);
      expect(perBatch.size).toBe(appendsIn(history));
      for (const key of acked) expect(perBatch.has(key), key).toBe(true);
    }
    expect(acked.size).toBeGreaterThan(6);
    // The appends were grouped: fewer log entries than snapshots.
    const entries = (await readdir(join(root, "_catalog", "log"))).length;
    expect(entries).toBeLessThan((await (await openRel(root)).batches.history()).length);
  }, 180_000);

  it("SIGKILL while a background checkpoint is written, 3 times: every acknowledged append once, the table opens", async () => {
    const root = await mkdtemp(join(tmpdir(), "ava-checkpoint-crash-"));
    await openRel(root);
    const acked = new Set<string>();
    for (let round = 0; round < 3; round++) {
      // The commit that makes a checkpoint due returns before it is written; the child dies during the write.
      const child = startWriter(root, `c${round}`, 0, 5, "kill-mid-checkpoint");
      let out = "";
      child.stdout!.on("data", (d) => {
        out += d;
      });
      expect((await exited(child)).signal).toBe("SIGKILL");
      for (const m of out.matchAll(/^ack (\S+)$/gm)) acked.add(m[1]!);
      // A fresh instance opens from whatever checkpoint is whole (the new one or an older one) and the log.
      const ns = await openRel(root);
      const history = await ns.batches.history();
      const perBatch = batchesOf(await ns.batches.read());
      expect(perBatch.size).toBe(appendsIn(history));
      expect([...perBatch.values()].every((n) => n === 5)).toBe(true);
      for (const key of acked) expect(perBatch.has(key), key).toBe(true);
    }
    expect(acked.size).toBeGreaterThanOrEqual(90); // the first checkpoint is due at version 100
    // A checkpoint cut short left at most a temp file, which vacuum removes.
    await (await openRel(root)).vacuum({ olderThanMs: 0 });
    expect(await readdir(join(root, "_catalog", "tmp"))).toEqual([]);
  }, 180_000);

  it("a writer killed with SIGKILL at random points, 20 times: every committed snapshot reads whole", async () => {
    const root = await mkdtemp(join(tmpdir(), "ava-crash-"));
    await openRel(root);
    const rowsPerBatch = 20_000;
    let orphansMade = 0;
    for (let round = 0; round < 20; round++) {
      // Even rounds: killed by a random timer. Odd rounds: killed between a data file write and its commit.
      const afterWrite = round % 2 === 1;
      const child = startWriter(root, `k${round}`, 0, rowsPerBatch, afterWrite ? "kill-after-write" : "");
      const done = exited(child);
      await firstLine(child);
      if (afterWrite) orphansMade++;
      else {
        await new Promise((r) => setTimeout(r, Math.random() * 150));
        child.kill("SIGKILL");
      }
      expect((await done).signal).toBe("SIGKILL");

      // A fresh instance, as after a restart: the table opens and each snapshot is complete.
      const ns = await openRel(root);
      const history = await ns.batches.history();
      expect(history.length).toBeGreaterThanOrEqual(round + 1);
      const last = await ns.batches.read();
      expect(last.numRows).toBe(history.at(-1)!.totalRows);
      const perBatch = batchesOf(last);
      expect([...perBatch.values()].every((n) => n === rowsPerBatch)).toBe(true);
      expect(perBatch.size).toBe(history.length);
    }

    // Every snapshot of the history reads, with the row count the catalog recorded.
    const ns = await openRel(root);
    const history = await ns.batches.history();
    for (const s of history.filter((_, i) => i % 5 === 0 || i === history.length - 1)) {
      expect((await ns.batches.read({ snapshotId: s.id })).numRows).toBe(s.totalRows);
    }

    // Vacuum leaves exactly the referenced data files and no catalog temp files.
    const referenced = new Set(history.flatMap((s) => s.addedFiles.map((f) => f.path)));
    const { removed } = await ns.vacuum({ olderThanMs: 0 });
    expect(removed.filter((p) => p.startsWith("data/")).length).toBeGreaterThanOrEqual(orphansMade);
    const onDisk = (await ns.storage.files.list("data/")).map((f) => f.path);
    expect(new Set(onDisk)).toEqual(referenced);
    expect(await readdir(join(root, "_catalog", "tmp"))).toEqual([]);
    expect((await ns.batches.read()).numRows).toBe(history.at(-1)!.totalRows);
  }, 180_000);
});
