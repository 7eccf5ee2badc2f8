// Maintenance, one suite per storage (memory and Node here and in Chromium; browser storage in Chromium):
// compaction that changes no visible row and keeps time travel, expiry by retention that respects
// consumers and cursors, deferred deletion, catalog cleanup, ns.maintain(), and a soak test that
// fast-forwards a controllable clock instead of sleeping.
import type * as A from "apache-arrow";
import { describe, expect, it } from "vitest";
import * as ava from "../../src/index.js";
import type { Storage } from "../../src/index.js";
import { serializeState } from "../../src/storage/catalog/checkpoint.js";
import { pinSnapshot } from "../../src/table/pins.js";
import { Docs, expectAvaError, telemetry, telemetrySchema } from "./fixtures.js";

/** The telemetry table with inlined small appends (`inline: true`: up to 10 rows). */
const Inl = ava.defineNamespace({
  name: "inl",
  tables: { telemetry: ava.table({ schema: telemetrySchema, inline: true }) },
});

/** The soak size npm test runs on every storage (see MaintenanceTarget.soakAppends). */
export const SOAK_APPENDS = 20_000;

/** AVA_SOAK_APPENDS from the environment (Node) or Vite's env (Chromium), else `fallback`. */
export function soakAppends(fallback = SOAK_APPENDS): number {
  const env =
    (import.meta as { env?: Record<string, string | undefined> }).env?.AVA_SOAK_APPENDS ??
    (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.AVA_SOAK_APPENDS;
  return env ? Number(env) : fallback;
}

export interface MaintenanceTarget {
  fresh(): Promise<{ open(options?: { now?: () => number }): Storage }>;
  /** Bytes the catalog occupies on its medium (log entries and checkpoints), where it can be measured. */
  catalogBytes?(storage: Storage): Promise<number>;
  /**
   * Soak size: small appends made. npm test runs the 20,000 per storage (memory in Node and
   * Chromium, a Node folder, OPFS + IndexedDB). In a clean CI run at 5,000 they took 60 s (OPFS +
   * IndexedDB), 21 s (Node folder), 10 s (memory, Chromium) and 6 s (memory, Node), beside the rest of the
   * suite; the soak's state is bounded, so its time grows linearly with the count. AVA_SOAK_APPENDS sets
   * another size (in Chromium too, through Vite's env).
   */
  soakAppends: number;
}

/** A clock the test moves: starts at a fixed day and only moves when told. */
function testClock() {
  let t = Date.UTC(2026, 0, 1);
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

const HOUR = 3_600_000;

/**
 * The soak's telemetry table: appends of up to 45 rows are inlined (the default is 10; the threshold is
 * per table), so most of its 1–50-row appends ride in the catalog as a telemetry app's would once it sets
 * the threshold to its batch size, and one in ten still writes a data file. Its inlined rows are flushed
 * by maintenance (every 25 appends) and by size in the background, not by age: with a minute between
 * appends the default 10 minutes would add a flush every 10 appends (the age rule has its own test).
 */
const Soak = ava.defineNamespace({
  name: "inl",
  tables: {
    telemetry: ava.table({
      schema: telemetrySchema,
      inline: { maxRows: 45, flush: { maxAgeMs: HOUR } },
    }),
  },
});

/**
 * Docs' telemetry table, inlining but never flushed in the background: inlined appends an hour apart
 * would be flushed by age, and the tests that use it count snapshots.
 */
const Kept = ava.defineNamespace({
  name: "docs",
  tables: { telemetry: ava.table({ schema: telemetrySchema, inline: { flush: false } }) },
});

/** `channel:ts` of every row, sorted (row identity in the telemetry fixture). */
function keys(table: A.Table): string[] {
  const ch = table.getChild("channel")!;
  const ts = table.getChild("ts")!;
  const out: string[] = [];
  for (let i = 0; i < table.numRows; i++) out.push(`${ch.get(i)}:${ts.get(i)}`);
  return out;
}

async function dataFiles(storage: Storage): Promise<string[]> {
  return (await storage.files.list("data/")).map((f) => f.path).sort();
}

export function describeMaintenance(name: string, target: MaintenanceTarget) {
  describe(`maintenance: ${name}`, () => {
    it("compact() merges small files in one snapshot that changes no row, order or older snapshot", async () => {
      const location = await target.fresh();
      const storage = location.open();
      const ns = await Docs.open({ storage });
      await ns.push();
      const snapshots: { id: string; rows: string[] }[] = [];
      for (let i = 0; i < 12; i++) {
        const res = await ns.telemetry.append(telemetry(`c${i % 3}`, i * 100, 1 + (i % 5)));
        snapshots.push({ id: res.snapshotId, rows: keys(await ns.telemetry.read()) });
      }
      const before = keys(await ns.telemetry.read());
      const limited = keys(await ns.telemetry.scan({ limit: 7 }).toArrow());
      const result = await ns.telemetry.compact();
      expect(result).toMatchObject({ filesRemoved: 12, filesAdded: 1, filesBefore: 12, filesAfter: 1 });
      const current = (await ns.telemetry.currentSnapshot())!;
      expect(current.operation).toBe("compact");
      expect(current.totalRows).toBe(before.length);
      expect(current.addedRows).toBe(current.removedRows);
      expect(current.removedFiles).toHaveLength(12);
      // The same rows in the same order (a scan with a limit sees the same first rows).
      expect(keys(await ns.telemetry.read())).toEqual(before);
      expect(keys(await ns.telemetry.scan({ limit: 7 }).toArrow())).toEqual(limited);
      const plan = await ns.telemetry.scan({ filter: (w) => w.eq("channel", "c1") }).plan();
      expect(plan.files).toHaveLength(1);
      // Time travel to every older snapshot still reads exactly what it did (their files are kept).
      const other = await Docs.open({ storage: location.open() });
      for (const s of snapshots)
        expect(keys(await other.telemetry.read({ snapshotId: s.id }))).toEqual(s.rows);
      // Nothing left to merge: no new snapshot.
      expect((await ns.telemetry.compact()).snapshotId).toBeUndefined();
      expect(await ns.telemetry.history()).toHaveLength(13);
    });

    it("append_scan consumers and subscribers never take compacted rows as new", async () => {
      const storage = (await target.fresh()).open();
      const ns = await Docs.open({ storage });
      await ns.push();
      const seen: string[] = [];
      const take = () =>
        ava.consume(ns.telemetry, { key: "reader", maxSnapshots: 100 }, (rows) => {
          seen.push(...keys(rows));
        });
      for (let i = 0; i < 5; i++) await ns.telemetry.append(telemetry("a", i * 10, 3));
      await take();
      for (let i = 5; i < 8; i++) await ns.telemetry.append(telemetry("a", i * 10, 3));
      await ns.telemetry.compact();
      for (let i = 8; i < 10; i++) await ns.telemetry.append(telemetry("a", i * 10, 3));
      await ns.telemetry.compact();
      const pending = await ava.pendingSnapshots(storage, Docs.tables.telemetry, "reader");
      expect(pending).toHaveLength(5);
      await take();
      expect(seen.sort()).toEqual(keys(await ns.telemetry.read()).sort());
      expect(new Set(seen).size).toBe(30);
      expect((await take()).snapshots).toBe(0);
    });

    it("a compaction that loses a race retries; racing appends and compactions lose and duplicate nothing", async () => {
      const location = await target.fresh();
      const ns = await Docs.open({ storage: location.open() });
      await ns.push();
      for (let i = 0; i < 6; i++) await ns.telemetry.append(telemetry("seed", i * 10, 2));
      const writers = await Promise.all([0, 1, 2].map(() => Docs.open({ storage: location.open() })));
      const compactors = await Promise.all([0, 1].map(() => Docs.open({ storage: location.open() })));
      let appending = true;
      const appends = Promise.all(
        writers.map(async (w, n) => {
          for (let i = 0; i < 10; i++) await w.telemetry.append(telemetry(`w${n}`, i * 10, 1 + (i % 4)));
        }),
      ).finally(() => {
        appending = false;
      });
      const compactions = compactors.map(async (c) => {
        let conflicts = 0;
        while (appending) {
          await c.telemetry.compact({ minFiles: 2 }).catch((err) => {
            if (!ava.isAvaError(err, "COMMIT_CONFLICT")) throw err;
            conflicts++; // yielded after its retries: allowed, nothing lost
          });
        }
        return conflicts;
      });
      await appends;
      await Promise.all(compactions);
      const expected = [
        ...Array.from({ length: 6 }, (_, i) => keys(telemetry("seed", i * 10, 2))).flat(),
        ...[0, 1, 2].flatMap((n) =>
          Array.from({ length: 10 }, (_, i) => keys(telemetry(`w${n}`, i * 10, 1 + (i % 4)))).flat(),
        ),
      ].sort();
      const fresh = await Docs.open({ storage: location.open() });
      expect(keys(await fresh.telemetry.read()).sort()).toEqual(expected);
      const history = await fresh.telemetry.history();
      expect(history.filter((s) => s.operation === "compact").length).toBeGreaterThan(0);
      expect(history.at(-1)!.totalRows).toBe(expected.length);
    });

    it("expires snapshots by age and count; an expired snapshot is NOT_FOUND saying so", async () => {
      const clock = testClock();
      const storage = (await target.fresh()).open({ now: clock.now });
      const ns = await Kept.open({ storage });
      await ns.push();
      const ids: string[] = [];
      const rowsAt: string[][] = [];
      for (let i = 0; i < 10; i++) {
        ids.push((await ns.telemetry.append(telemetry("e", i * 10, 2))).snapshotId);
        rowsAt.push(keys(await ns.telemetry.read()));
        clock.advance(HOUR);
      }
      // Snapshots 1..10 are 10h..1h old; keep 4h of them, and at least 2.
      const result = await ns.maintain({
        retain: { maxAgeMs: 4 * HOUR, minSnapshots: 2 },
        compact: false,
        flush: false, // the appends stay inlined: a flush would add a snapshot
      });
      expect(result.snapshotsExpired).toBe(6);
      const history = await ns.telemetry.history();
      expect(history.map((s) => s.sequenceNumber)).toEqual([7, 8, 9, 10]);
      await expectAvaError(
        ns.telemetry.read({ snapshotId: ids[0]! }),
        "NOT_FOUND",
        /expired/,
        /docs\.telemetry/,
      );
      await expectAvaError(ns.telemetry.snapshot(ids[5]!), "NOT_FOUND", /expired/);
      await expectAvaError(ns.telemetry.read({ snapshotId: "nope" }), "NOT_FOUND", /no snapshot nope$/);
      for (let i = 6; i < 10; i++)
        expect(keys(await ns.telemetry.read({ snapshotId: ids[i]! }))).toEqual(rowsAt[i]);
      expect(keys(await ns.telemetry.read())).toEqual(rowsAt[9]);
      // Count wins over age: everything is old now, two are kept.
      clock.advance(100 * HOUR);
      await ns.maintain({ retain: { maxAgeMs: 0, minSnapshots: 2 }, compact: false, flush: false });
      expect((await ns.telemetry.history()).map((s) => s.sequenceNumber)).toEqual([9, 10]);
    });

    it("never expires what a consumer has not passed, a cursor names or a pinned handle holds", async () => {
      const clock = testClock();
      const storage = (await target.fresh()).open({ now: clock.now });
      const ns = await Kept.open({ storage });
      await ns.push();
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) {
        ids.push((await ns.telemetry.append(telemetry("k", i * 10, 1))).snapshotId);
        clock.advance(HOUR);
      }
      const retain = { retain: { maxAgeMs: 0, minSnapshots: 1 }, compact: false, flush: false } as const;
      // The consumer has taken snapshots 1..3: it still needs 4 onwards.
      await ava.consume(ns.telemetry, { key: "slow", maxSnapshots: 3 }, () => {});
      await ns.maintain(retain);
      expect((await ns.telemetry.history())[0]!.sequenceNumber).toBe(4);
      const pending = await ava.pendingSnapshots(storage, Kept.tables.telemetry, "slow");
      expect(pending.map((p) => p.sequenceNumber)).toEqual([4, 5, 6, 7, 8]);
      // A cursor naming snapshot 5 keeps it (and those after it).
      await new ava.Cursor(storage, Kept.tables.telemetry, "mark", undefined).transaction(async (tx) =>
        tx.set(ids[4]!),
      );
      await ava.consume(ns.telemetry, { key: "slow", maxSnapshots: 10 }, () => {});
      await ns.maintain(retain);
      expect((await ns.telemetry.history())[0]!.sequenceNumber).toBe(5);
      // A pinned SQL handle of this context holds snapshot 6.
      await new ava.Cursor(storage, Kept.tables.telemetry, "mark", undefined).transaction(async (tx) =>
        tx.set("moved-on"),
      );
      const release = pinSnapshot(storage, "docs.telemetry", ids[5]!);
      await ns.maintain(retain);
      expect((await ns.telemetry.history())[0]!.sequenceNumber).toBe(6);
      release();
      await ns.maintain(retain);
      expect((await ns.telemetry.history()).map((s) => s.sequenceNumber)).toEqual([8]);
      // The consumer still processes new rows exactly once.
      await ns.telemetry.append(telemetry("k", 999, 1));
      const got: string[] = [];
      await ava.consume(ns.telemetry, { key: "slow", maxSnapshots: 10 }, (rows) => {
        got.push(...keys(rows));
      });
      expect(got).toEqual(["k:999"]);
    });

    it("deletes unreferenced files only after the grace period, never while a kept snapshot reads them", async () => {
      const clock = testClock();
      const location = await target.fresh();
      const storage = location.open({ now: clock.now });
      const ns = await Docs.open({ storage });
      await ns.push();
      for (let i = 0; i < 6; i++) await ns.telemetry.append(telemetry("d", i * 100, 30)); // files, not inlined
      const small = await dataFiles(storage);
      const compacted = await ns.telemetry.compact();
      expect(compacted.filesAdded).toBe(1);
      const policy = {
        retain: { maxAgeMs: HOUR, minSnapshots: 1 },
        graceMs: 10 * 60_000,
        compact: false as const,
      };
      // Snapshots are young: nothing expires, every file is still read by some snapshot.
      let result = await ns.maintain(policy);
      expect(result).toMatchObject({ snapshotsExpired: 0, filesDeleted: 0 });
      expect(await dataFiles(storage)).toHaveLength(7);
      clock.advance(2 * HOUR);
      result = await ns.maintain(policy);
      expect(result.snapshotsExpired).toBe(6); // all but the compaction
      expect(result.filesDeleted).toBe(0); // scheduled, in their grace period
      expect(await dataFiles(storage)).toHaveLength(7);
      const state = await storage.catalog.current();
      expect(state.tables["docs.telemetry"]!.doomed!.map((f) => f.path).sort()).toEqual(small);
      clock.advance(11 * 60_000);
      result = await ns.maintain(policy);
      expect(result.filesDeleted).toBe(6);
      const live = (await storage.catalog.current()).tables["docs.telemetry"]!;
      expect(await dataFiles(storage)).toEqual(live.history.liveFiles.map((f) => f.path));
      expect(live.doomed).toEqual([]);
      expect((await ns.telemetry.read()).numRows).toBe(180);
      const fresh = await Docs.open({ storage: location.open({ now: clock.now }) });
      expect((await fresh.telemetry.read()).numRows).toBe(180);
    });

    it("cleans up catalog entries a checkpoint covers; lagging and fresh instances read the same state", async () => {
      const clock = testClock();
      const location = await target.fresh();
      const storage = location.open({ now: clock.now });
      const ns = await Kept.open({ storage });
      await ns.push();
      const lagging = await Kept.open({ storage: location.open({ now: clock.now }) });
      expect(await lagging.telemetry.history()).toHaveLength(0); // holds version 2
      // (A background flush would clean up too: this table leaves its inlined rows to maintenance.)
      for (let i = 0; i < 230; i++) await ns.telemetry.append(telemetry("k", i, 1));
      const policy = { retain: false as const, compact: false as const, graceMs: HOUR };
      expect((await ns.maintain(policy)).catalogEntriesRemoved).toBe(0); // checkpoints now; grace not over
      clock.advance(2 * HOUR);
      // Newer checkpoints keep coming (young ones): cleanup still goes up to the newest old enough one.
      for (let i = 230; i < 350; i++) await ns.telemetry.append(telemetry("k", i, 1));
      const result = await ns.maintain(policy);
      expect(result.catalogEntriesRemoved).toBeGreaterThanOrEqual(150);
      const fresh = await Kept.open({ storage: location.open() });
      expect((await fresh.telemetry.read()).numRows).toBe(350);
      expect((await lagging.telemetry.read()).numRows).toBe(350); // fell behind the cleanup: reopened
      await lagging.telemetry.append(telemetry("late", 0, 1));
      expect((await ns.telemetry.read()).numRows).toBe(351);
    });

    it("inlines small appends into the catalog: read, filtered, time travelled and consumed like file rows", async () => {
      const clock = testClock();
      const location = await target.fresh();
      const storage = location.open({ now: clock.now });
      const ns = await Inl.open({ storage });
      await ns.push();
      const ids: string[] = [];
      const rowsAt: string[][] = [];
      const consumed: string[] = [];
      const consume = () =>
        ava.consume(ns.telemetry, { key: "inl", maxSnapshots: 100 }, (rows) => {
          consumed.push(...keys(rows));
        });
      for (let i = 0; i < 8; i++) {
        const res = await ns.telemetry.append(telemetry(`i${i % 2}`, i * 10, 1 + (i % 10)));
        expect(res.snapshot.addedFiles[0]!.inline).toBeTypeOf("string");
        ids.push(res.snapshotId);
        rowsAt.push(keys(await ns.telemetry.read()));
        clock.advance(60_000);
        if (i === 3) await consume();
      }
      const big = await ns.telemetry.append(telemetry("big", 1000, 11)); // over maxRows: a file
      expect(big.snapshot.addedFiles[0]!.inline).toBeUndefined();
      expect(await dataFiles(storage)).toEqual([big.snapshot.addedFiles[0]!.path]); // no file for the inlined
      // Provenance, filters (with pruning by the inlined rows' statistics) and another instance.
      const other = await Inl.open({ storage: location.open({ now: clock.now }) });
      const all = await other.telemetry.read();
      expect(all.numRows).toBe(36 + 11);
      expect(all.getChild("_ava_updated_at")!.nullCount).toBe(0);
      const plan = await other.telemetry.scan({ filter: (w) => w.eq("channel", "i1") }).plan();
      expect(plan.files.every((f) => f.stats.channel?.min === "i1")).toBe(true);
      expect(keys(await other.telemetry.scan({ filter: (w) => w.eq("channel", "i1") }).toArrow())).toEqual(
        keys(all).filter((k) => k.startsWith("i1:")),
      );
      // Flushed by age into one data file, in a snapshot that changes no row and no older snapshot.
      const before = keys(await ns.telemetry.read());
      const flushed = await ns.maintain({ flush: { maxAgeMs: 5 * 60_000 }, compact: false, retain: false });
      expect(flushed.inlinedFlushed).toBe(8);
      expect((await ns.telemetry.currentSnapshot())!.operation).toBe("compact");
      expect(keys(await ns.telemetry.read())).toEqual(before);
      expect((await dataFiles(storage)).length).toBe(2);
      for (let i = 0; i < 8; i++)
        expect(keys(await ns.telemetry.read({ snapshotId: ids[i]! }))).toEqual(rowsAt[i]);
      // The consumer takes each inlined row once, before and after the flush.
      await consume();
      expect(consumed.sort()).toEqual(before.slice().sort());
      expect((await consume()).snapshots).toBe(0);
      // Inlining off for a table: every append is a file.
      const Off = ava.defineNamespace({
        name: "off",
        tables: { t: ava.table({ schema: telemetrySchema, inline: false }) },
      });
      const off = await Off.open({ storage });
      await off.push();
      const res = await off.t.append(telemetry("o", 0, 1));
      expect(res.snapshot.addedFiles[0]!.inline).toBeUndefined();
      expect(() => ava.table({ schema: telemetrySchema, inline: { maxRows: -1 } })).toThrow(/maxRows/);
    });

    it("refuses bad maintenance input with INVALID_ARGUMENT, changing nothing", async () => {
      const storage = (await target.fresh()).open();
      const ns = await Docs.open({ storage });
      await ns.push();
      await ns.telemetry.append(telemetry("x", 0, 1));
      const version = (await storage.catalog.current()).version;
      await expectAvaError(
        ns.telemetry.compact({ targetFileBytes: -1 }),
        "INVALID_ARGUMENT",
        /targetFileBytes/,
      );
      await expectAvaError(ns.telemetry.compact({ minFiles: 1 }), "INVALID_ARGUMENT", /minFiles/);
      await expectAvaError(ns.maintain({ retain: { maxAgeMs: -5 } }), "INVALID_ARGUMENT", /maxAgeMs/);
      await expectAvaError(ns.maintain({ retain: { minSnapshots: 0 } }), "INVALID_ARGUMENT", /minSnapshots/);
      await expectAvaError(ns.maintain({ graceMs: "soon" as never }), "INVALID_ARGUMENT", /graceMs/);
      await expectAvaError(ns.maintain({ orphanAgeMs: -1 }), "INVALID_ARGUMENT", /orphanAgeMs/);
      await expectAvaError(ns.maintain({ flush: { maxRows: -1 } }), "INVALID_ARGUMENT", /flush\.maxRows/);
      await expectAvaError(ns.maintain(null as never), "INVALID_ARGUMENT", /options/);
      await expectAvaError(
        Docs.open({ storage, maintenance: { auto: "yes" as never } }),
        "INVALID_ARGUMENT",
        /auto/,
      );
      await expectAvaError(
        Docs.open({ storage, maintenance: { auto: true, intervalMs: 0 } }),
        "INVALID_ARGUMENT",
        /intervalMs/,
      );
      await expectAvaError(ns.vacuum({ olderThanMs: -1 }), "INVALID_ARGUMENT", /olderThanMs/);
      expect((await storage.catalog.current()).version).toBe(version);
    });

    it("without maintenance, checkpoints are thinned: catalog bytes grow with the state, not its square", async () => {
      const clock = testClock();
      const location = await target.fresh();
      const storage = location.open({ now: clock.now });
      const ns = await Inl.open({ storage });
      await ns.push();
      const lagging = await Inl.open({ storage: location.open({ now: clock.now }) });
      expect(await lagging.telemetry.history()).toHaveLength(0);
      const commits = 1200;
      for (let i = 0; i < commits; i++) {
        await ns.telemetry.append(telemetry("c", i, 1));
        clock.advance(1000);
      }
      // Readers that opened long ago catch up from the log; fresh ones open from the newest checkpoint.
      expect((await lagging.telemetry.read()).numRows).toBe(commits);
      const fresh = await Inl.open({ storage: location.open({ now: clock.now }) });
      expect((await fresh.telemetry.read()).numRows).toBe(commits);
      // The appends, and the background flushes of their inlined rows (1,000 rows each).
      const history = await fresh.telemetry.history();
      expect(history.filter((s) => s.operation === "append")).toHaveLength(commits);
      expect(history.filter((s) => s.operation === "compact").length).toBeLessThanOrEqual(1);
      if (target.catalogBytes) {
        const state = serializeState(await storage.catalog.current()).length;
        // A checkpoint every 100 versions, all kept, would hold ~6.5 states by now (and ever more): the
        // log itself is about one state, the few kept checkpoints a couple more.
        expect(await target.catalogBytes(storage)).toBeLessThan(5 * state);
      }
    });

    it("group commit: concurrent appends share log entries, each its own snapshot; a refused one fails alone", async () => {
      const location = await target.fresh();
      const storage = location.open();
      const ns = await Docs.open({ storage });
      await ns.push();
      const before = (await storage.catalog.current()).version;
      const telemetryRows = (i: number) => telemetry(`g${i}`, i * 1000, i % 4 === 0 ? 25 : 1 + (i % 10));
      const appends = [
        // Inlined and data-file appends to one table, and appends to another table of the namespace.
        ...Array.from({ length: 32 }, (_, i) => ns.telemetry.append(telemetryRows(i))),
        ...Array.from({ length: 8 }, (_, i) => ns.plain.append({ k: `p${i}`, v: i })),
        // The same idempotency key twice: one snapshot, the other answered with it.
        ns.plain.append({ k: "once", v: 1 }, { idempotencyKey: "once" }),
        ns.plain.append({ k: "once", v: 1 }, { idempotencyKey: "once" }),
      ];
      // Refused alone: bad rows (before the catalog), and a commit to a table that does not exist.
      const bad = expectAvaError(ns.plain.append({ k: 5, v: "x" } as never), "SCHEMA_MISMATCH");
      const missing = expectAvaError(
        storage.catalog.commit([
          {
            op: "commitSnapshot",
            namespace: "docs",
            table: "nope",
            snapshot: {
              id: "01KDVDNEW8JY6QB757GWHK8YN4",
              operation: "append",
              timestampMs: 0,
              addedFiles: [],
            },
          },
        ]),
        "NOT_FOUND",
        /nope/,
      );
      const results = await Promise.all(appends);
      await bad;
      await missing;
      const once = results.slice(-2);
      expect(once.map((r) => r.duplicate).sort()).toEqual([false, true]);
      expect(once[0]!.snapshotId).toBe(once[1]!.snapshotId);
      // Each append is its own snapshot, every row visible exactly once, in fewer log entries than commits.
      const made = results.slice(0, -1).map((r) => r.snapshotId);
      expect(new Set(made).size).toBe(made.length);
      const history = [...(await ns.telemetry.history()), ...(await ns.plain.history())];
      expect(history.map((s) => s.id).sort()).toEqual(made.slice().sort());
      const fresh = await Docs.open({ storage: location.open() });
      const expected = Array.from({ length: 32 }, (_, i) => keys(telemetryRows(i))).flat();
      expect(keys(await fresh.telemetry.read()).sort()).toEqual(expected.sort());
      expect((await fresh.plain.read()).numRows).toBe(9);
      const after = (await storage.catalog.current()).version;
      expect(after - before).toBeLessThan(made.length);
    });

    it("without maintenance, inlined rows are flushed in the background by size and age: bounded, exact", async () => {
      const clock = testClock();
      const location = await target.fresh();
      const storage = location.open({ now: clock.now });
      const ns = await Inl.open({ storage }); // the default flush: 1,000 rows or 10 minutes
      await ns.push();
      const inlined = async () =>
        (await storage.catalog.current()).tables["inl.telemetry"]!.history.inlined().rows;
      const written = new Map<string, number>();
      const consumed = new Map<string, number>();
      const sampled: { id: string; keys: string[] }[] = [];
      // A consumer that lags behind the flushes: it reads rows of snapshots that were flushed meanwhile.
      const consumer = () =>
        ava.consume(ns.telemetry, { key: "flush", maxSnapshots: 30 }, (rows) => {
          for (const k of keys(rows)) consumed.set(k, (consumed.get(k) ?? 0) + 1);
        });
      const appends = 2000;
      let maxInlined = 0;
      for (let i = 0; i < appends; i++) {
        const rows = telemetry(`f${i % 3}`, i * 100, 1 + (i % 10));
        const res = await ns.telemetry.append(rows); // never waits for a flush
        expect(res.snapshot.addedFiles[0]!.inline).toBeTypeOf("string");
        for (const k of keys(rows)) written.set(k, (written.get(k) ?? 0) + 1);
        clock.advance(1000);
        if (i % 50 === 49) await consumer();
        if (i % 199 === 0) sampled.push({ id: res.snapshotId, keys: keys(await ns.telemetry.read()).sort() });
        if (i % 100 === 99) {
          await ns.telemetry.inlineFlush.idle();
          maxInlined = Math.max(maxInlined, await inlined());
          // A flush takes every inlined append there is: none is ever left behind, before the file it
          // made (appends that land during a flush follow that file, and the next flush takes them).
          const live = (await storage.catalog.current()).tables["inl.telemetry"]!.history.liveFiles;
          const lastFlushed = live.map((f) => f.inline === undefined).lastIndexOf(true);
          expect(live.slice(0, lastFlushed + 1).filter((f) => f.inline !== undefined)).toEqual([]);
        }
      }
      await ns.telemetry.inlineFlush.idle();
      // By size: after each flush fewer than 1,000 rows stay inlined (the 2,000 appends hold 11,000).
      expect(ns.telemetry.inlineFlush.lastError).toBeUndefined();
      expect(ns.telemetry.inlineFlush.runs).toBeGreaterThanOrEqual(10);
      expect(maxInlined).toBeLessThan(1000);
      // By age: an append 10 minutes (here 2 hours: past the catalog's grace period too) after the oldest
      // inlined one flushes them all.
      clock.advance(2 * HOUR);
      const last = telemetry("late", 0, 1);
      await ns.telemetry.append(last);
      for (const k of keys(last)) written.set(k, 1);
      await ns.telemetry.inlineFlush.idle();
      expect(await inlined()).toBe(0);
      // No snapshot keeps an inlined payload any more: each keeps its slice of a flushed file.
      const state = await storage.catalog.current();
      const history = state.tables["inl.telemetry"]!.history;
      const added = history.snapshots.flatMap((s) => (s.operation === "compact" ? [] : s.addedFiles));
      expect(added).toHaveLength(appends + 1);
      expect(added.filter((f) => f.inline !== undefined)).toEqual([]);
      expect(added.every((f) => f.flushedTo !== undefined)).toBe(true);
      // Every row reads back exactly once, here and in a fresh instance; time travel is exact.
      const fresh = await Inl.open({ storage: location.open({ now: clock.now }) });
      for (const reader of [ns, fresh]) {
        const all = keys(await reader.telemetry.read());
        expect(all.length).toBe(written.size);
        expect(new Set(all).size).toBe(written.size);
        for (const s of sampled)
          expect(keys(await reader.telemetry.read({ snapshotId: s.id })).sort()).toEqual(s.keys);
      }
      // The consumer takes every row exactly once and never a flushed row as new.
      while ((await consumer()).snapshots > 0);
      expect(consumed.size).toBe(written.size);
      expect([...consumed.values()].every((n) => n === 1)).toBe(true);
      // Flushed files are referenced (kept by vacuum), and the catalog holds no rows: bytes bounded by it.
      const referenced = history.referencedFiles();
      for (const f of added) expect(referenced.has(f.flushedTo!.path)).toBe(true);
      const bytes = serializeState(state).length;
      // A snapshot is its entry and its slice: ~0.5 KB, not the ~4 KB its inlined rows and statistics took.
      expect(bytes / appends).toBeLessThan(800);
      // The log entries that held the rows are cleaned up once a checkpoint older than the grace covers them.
      if (target.catalogBytes) expect(await target.catalogBytes(storage)).toBeLessThan(5 * bytes);
      // Bad flush options are refused where the table is declared.
      for (const flush of [{ maxRows: -1 }, { maxAgeMs: "soon" }, { every: 5 }, "often"])
        expect(() => ava.table({ schema: telemetrySchema, inline: { flush: flush as never } })).toThrow(
          expect.objectContaining({ code: "INVALID_ARGUMENT", message: expect.stringMatching(/flush/) }),
        );
    });

    it(
      "soak: many small appends under auto maintenance stay bounded and exact",
      async () => {
        const clock = testClock();
        const location = await target.fresh();
        const policy = {
          auto: true,
          intervalMs: 60_000, // never fires on its own here: runNow() is driven with the clock
          retain: { maxAgeMs: 2 * HOUR, minSnapshots: 5 },
          graceMs: 10 * 60_000,
        };
        const storage = location.open({ now: clock.now });
        const ns = await Soak.open({ storage, maintenance: policy });
        await ns.push();
        const runner = ns.maintenance!;
        const written = new Map<string, number>();
        const consumed = new Map<string, number>();
        const sampled: { id: string; rows: number; at: number }[] = [];
        const consumer = () =>
          ava.consume(ns.telemetry, { key: "soak", maxSnapshots: 200 }, (rows) => {
            for (const k of keys(rows)) consumed.set(k, (consumed.get(k) ?? 0) + 1);
          });
        let maxLiveFiles = 0;
        let maxSnapshots = 0;
        for (let i = 0; i < target.soakAppends; i++) {
          const count = 1 + ((i * 7919) % 50);
          const rows = telemetry(`s${i % 4}`, i * 100, count);
          const res = await ns.telemetry.append(rows);
          for (const k of keys(rows)) written.set(k, (written.get(k) ?? 0) + 1);
          if (i % 97 === 0)
            sampled.push({ id: res.snapshotId, rows: res.snapshot.totalRows, at: clock.now() });
          clock.advance(60_000); // a minute between appends: hours pass over the run
          if (i % 10 === 9) await consumer();
          if (i % 25 === 24) {
            await runner.runNow();
            const t = (await storage.catalog.current()).tables["inl.telemetry"]!;
            maxLiveFiles = Math.max(maxLiveFiles, t.history.liveFiles.length);
            maxSnapshots = Math.max(maxSnapshots, t.history.length);
          }
        }
        while ((await consumer()).snapshots > 0);
        clock.advance(HOUR);
        await runner.runNow();
        await runner.runNow();
        await runner.stop();
        expect(runner.runs).toBeGreaterThan(0);
        const state = await storage.catalog.current();
        const table = state.tables["inl.telemetry"]!;
        // Bounded: live files by the tiered compaction (O(log rows)), snapshots by retention.
        expect(maxLiveFiles).toBeLessThan(25 + 30);
        expect(table.history.liveFiles.length).toBeLessThan(25);
        expect(maxSnapshots).toBeLessThanOrEqual(2 * 60 + 35);
        // Files on storage: what kept snapshots read, plus those still in their grace period.
        const onDisk = await dataFiles(storage);
        expect(onDisk.length).toBeLessThanOrEqual(
          table.history.referencedFiles().size + (table.doomed?.length ?? 0),
        );
        // Every row reads back exactly once, and the consumer processed every row exactly once.
        const all = keys(await ns.telemetry.read());
        expect(all.length).toBe(written.size);
        expect(new Set(all).size).toBe(written.size);
        expect([...consumed.values()].every((n) => n === 1)).toBe(true);
        expect(consumed.size).toBe(written.size);
        // Sampled snapshots: kept ones read exactly as committed, expired ones are NOT_FOUND.
        const kept = new Set(table.history.snapshots.map((s) => s.id));
        let expiredSeen = 0;
        for (const s of sampled) {
          if (kept.has(s.id)) expect((await ns.telemetry.read({ snapshotId: s.id })).numRows).toBe(s.rows);
          else {
            expiredSeen++;
            await expectAvaError(ns.telemetry.read({ snapshotId: s.id }), "NOT_FOUND", /expired/);
          }
        }
        expect(expiredSeen).toBeGreaterThan(0);
        if (target.catalogBytes) {
          const bytes = await target.catalogBytes(storage);
          // Bounded by live state: a checkpoint (kept snapshots, live files) and at most a few hundred entries.
          expect(bytes).toBeLessThan(2_000_000);
        }
      },
      Math.max(900_000, target.soakAppends * 150),
    ); // up to ~30 ms an append per storage on a loaded 2-core machine
  });
}
