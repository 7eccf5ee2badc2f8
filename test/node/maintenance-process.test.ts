// Maintenance across processes: compaction racing appends from 3 processes (and another compactor)
// loses and duplicates no row; a maintainer killed with SIGKILL mid-compaction or mid-deletion leaves the
// state before or after, and its leftovers are removed later.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nodeStorage } from "../../src/node.js";
import { batchesOf, batchRows, Rel } from "../shared/rel.js";

const APPEND = join(import.meta.dirname, "fixtures", "append-child.ts");
/** Batches over the inlining limit (10 rows): data files, which the crash tests below count. */
const FILE_ROWS = 12;
const MAINTAIN = join(import.meta.dirname, "fixtures", "maintain-child.ts");
const FLUSH = join(import.meta.dirname, "fixtures", "flush-child.ts");

function child(script: string, args: string[]): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", script, ...args], { stdio: ["pipe", "pipe", "pipe"] });
}

function exited(
  c: ChildProcess,
): Promise<{ code: number | null; signal: string | null; out: string; err: string }> {
  let out = "";
  let err = "";
  c.stdout!.on("data", (d) => {
    out += d;
  });
  c.stderr!.on("data", (d) => {
    err += d;
  });
  return new Promise((resolve) => c.on("exit", (code, signal) => resolve({ code, signal, out, err })));
}

async function seeded(batches: number, rows = 10) {
  const root = await mkdtemp(join(tmpdir(), "ava-maint-proc-"));
  const ns = await Rel.open({ storage: nodeStorage({ root, fsync: false }) });
  await ns.push();
  for (let b = 0; b < batches; b++) await ns.batches.append(batchRows("seed", b, rows));
  return { root, ns };
}

/** Every batch whole and exactly `expected` batches: no row lost or duplicated. */
async function expectExact(root: string, expected: number, rows: number) {
  const ns = await Rel.open({ storage: nodeStorage({ root }) });
  const all = await ns.batches.read();
  const perBatch = batchesOf(all);
  expect(perBatch.size).toBe(expected);
  expect([...perBatch.values()].every((n) => n === rows)).toBe(true);
  return ns;
}

describe("maintenance across processes", () => {
  it("two compactor processes racing appends from 3 processes: every row exactly once", async () => {
    const { root } = await seeded(5);
    const compactors = [0, 1].map(() => child(MAINTAIN, [root, "compact-loop"]));
    const compacted = compactors.map(exited);
    const writers = ["w0", "w1", "w2"].map((w) => exited(child(APPEND, [root, w, "25", "10"])));
    for (const r of await Promise.all(writers)) expect(r, r.err).toMatchObject({ code: 0 });
    for (const c of compactors) c.stdin!.end();
    const results = await Promise.all(compacted);
    for (const r of results) expect(r, r.err).toMatchObject({ code: 0 });
    const counts = results.map((r) => JSON.parse(r.out.trim().split("\n").at(-1)!));
    expect(counts.reduce((n, c) => n + c.compactions, 0)).toBeGreaterThan(0);
    const ns = await expectExact(root, 5 + 3 * 25, 10);
    const history = await ns.batches.history();
    expect(history.filter((s) => s.operation === "append")).toHaveLength(80);
    // Every snapshot before and after each compaction reads what it committed.
    for (const s of history.filter((_, i) => i % 7 === 0))
      expect((await ns.batches.read({ snapshotId: s.id })).numRows).toBe(s.totalRows);
  }, 180_000);

  it("SIGKILL mid-compaction: the state before it, and the merged file is an orphan vacuum removes", async () => {
    const { root, ns } = await seeded(6, FILE_ROWS);
    const before = await ns.batches.history();
    const r = await exited(child(MAINTAIN, [root, "kill-mid-compact"]));
    expect(r.signal).toBe("SIGKILL");
    const after = await expectExact(root, 6, FILE_ROWS);
    expect((await after.batches.history()).map((s) => s.id)).toEqual(before.map((s) => s.id));
    expect(await after.storage.files.list("data/")).toHaveLength(7); // 6 live + the merged orphan
    await after.maintain({ graceMs: 0, orphanAgeMs: 0, compact: false, retain: false });
    expect(await after.storage.files.list("data/")).toHaveLength(6);
    // And compaction still works afterwards.
    expect((await after.batches.compact()).filesRemoved).toBe(6);
    await expectExact(root, 6, FILE_ROWS);
  }, 60_000);

  for (const [mode, state] of [
    ["after-write", "before it: its file is an orphan vacuum removes"],
    ["after-commit", "after it"],
  ] as const)
    it(`SIGKILL during a background flush (${mode}): the state ${state}; every acknowledged append once`, async () => {
      const root = await mkdtemp(join(tmpdir(), "ava-flush-kill-"));
      const r = await exited(child(FLUSH, [root, "f", mode]));
      expect(r.signal, r.err).toBe("SIGKILL");
      const acked = [...r.out.matchAll(/^ack (\S+)$/gm)].map((m) => m[1]!);
      expect(acked.length).toBeGreaterThanOrEqual(199); // the flush is due at 1,000 inlined rows
      const ns = await Rel.open({ storage: nodeStorage({ root, fsync: false }) });
      const history = await ns.batches.history();
      const appends = history.filter((s) => s.operation === "append");
      const flushes = history.filter((s) => s.operation === "compact");
      expect(flushes).toHaveLength(mode === "after-write" ? 0 : 1);
      const perBatch = batchesOf(await ns.batches.read());
      expect(perBatch.size).toBe(appends.length);
      expect([...perBatch.values()].every((n) => n === 5)).toBe(true);
      for (const key of acked) expect(perBatch.has(key), key).toBe(true);
      const parquet = async () =>
        (await ns.storage.files.list("data/")).filter((f) => f.path.endsWith(".parquet")).length;
      // The flushed file: an orphan (before) or the flush's live file (after); vacuum removes only an orphan.
      expect(await parquet()).toBe(1);
      await ns.vacuum({ olderThanMs: 0 });
      expect(await parquet()).toBe(flushes.length);
      // The next commit flushes what is still inlined (before: 1,000 rows are due; after: the few appended
      // while the flush ran are not), and every row reads back once.
      await ns.batches.append(batchRows("next", 0, 5));
      await ns.batches.inlineFlush.idle();
      expect(ns.batches.inlineFlush.lastError).toBeUndefined();
      expect((await ns.batches.history()).filter((s) => s.operation === "compact")).toHaveLength(1);
      const after = batchesOf(await ns.batches.read());
      expect(after.size).toBe(appends.length + 1);
      expect([...after.values()].every((n) => n === 5)).toBe(true);
    }, 120_000);

  it("SIGKILL mid-deletion after expiry: the expiry holds, the rest is deleted by the next run", async () => {
    const { root, ns } = await seeded(6, FILE_ROWS);
    await ns.batches.compact();
    const r = await exited(child(MAINTAIN, [root, "kill-mid-delete"]));
    expect(r.signal).toBe("SIGKILL");
    const after = await expectExact(root, 6, FILE_ROWS);
    expect((await after.batches.history()).map((s) => s.operation)).toEqual(["compact"]);
    const state = await after.storage.catalog.current();
    expect(state.tables["rel.batches"]!.doomed).toHaveLength(6); // two already deleted, not yet forgotten
    expect(await after.storage.files.list("data/")).toHaveLength(5);
    const result = await after.maintain({ graceMs: 0, orphanAgeMs: 0, compact: false, retain: false });
    expect(result.filesDeleted).toBe(6);
    expect((await after.storage.files.list("data/")).map((f) => f.path)).toEqual(
      state.tables["rel.batches"]!.history.liveFiles.map((f) => f.path),
    );
    await expectExact(root, 6, FILE_ROWS);
  }, 60_000);

  it("a maintainer killed at random points while a writer appends: state always whole, leftovers removed", async () => {
    const { root } = await seeded(4, FILE_ROWS);
    const writer = child(APPEND, [root, "w", "0", String(FILE_ROWS)]);
    const writing = exited(writer);
    for (let round = 0; round < 6; round++) {
      const m = child(MAINTAIN, [root, "maintain-loop"]);
      const done = exited(m);
      await new Promise((r) => setTimeout(r, 300 + Math.random() * 400));
      m.kill("SIGKILL");
      expect((await done).signal).toBe("SIGKILL");
      const ns = await Rel.open({ storage: nodeStorage({ root }) });
      // One snapshot, read whole (the writer goes on committing meanwhile).
      const current = (await ns.batches.currentSnapshot())!;
      const rows = await ns.batches.read({ snapshotId: current.id });
      expect(rows.numRows).toBe(current.totalRows);
      expect([...batchesOf(rows).values()].every((n) => n === FILE_ROWS)).toBe(true);
    }
    writer.kill("SIGKILL");
    await writing;
    const ns = await Rel.open({ storage: nodeStorage({ root }) });
    await ns.maintain({ graceMs: 0, orphanAgeMs: 0, compact: false, retain: false });
    const state = await ns.storage.catalog.current();
    const table = state.tables["rel.batches"]!;
    const onDisk = (await ns.storage.files.list("data/")).map((f) => f.path).sort();
    expect(onDisk).toEqual([...table.history.referencedFiles()].sort());
    const perBatch = batchesOf(await ns.batches.read());
    expect([...perBatch.values()].every((n) => n === FILE_ROWS)).toBe(true);
    // The seed batches and every batch of the writer up to its last commit, each once.
    const seen = [...perBatch.keys()].filter((k) => k.startsWith("w/")).map((k) => Number(k.split("/")[1]));
    expect(seen.sort((a, b) => a - b)).toEqual(seen.map((_, i) => i));
  }, 120_000);
});
