// The storage contract: one suite, run against every Storage implementation (memory and Node here; the
// browser storage plugs in the same way). `fresh()` gives a new empty location; each `open()` on it is an
// independent instance, as another tab, Worker or process would have.
import { describe, expect, it } from "vitest";
import type { Storage } from "../../src/index.js";
import { Docs, doc, expectAvaError, telemetry } from "./fixtures.js";
import { describeNumericEdges } from "./numeric-edges-contract.js";

export interface StorageTarget {
  fresh(): Promise<{ open(): Storage }>;
}

const bytes = (...xs: number[]) => new Uint8Array(xs);

export function describeStorage(name: string, target: StorageTarget) {
  describeNumericEdges(name, target);
  describe(`storage contract: ${name}`, () => {
    describe("FileStore", () => {
      it("writes whole files once, reads them whole or by range, lists by prefix and deletes", async () => {
        const { files } = (await target.fresh()).open();
        await files.write("data/a/x.bin", bytes(1, 2, 3, 4, 5));
        await files.write("data/b/y.bin", bytes(9));
        expect([...(await files.read("data/a/x.bin"))]).toEqual([1, 2, 3, 4, 5]);
        expect([...(await files.readRange("data/a/x.bin", 1, 3))]).toEqual([2, 3, 4]);
        const listed = await files.list("data/a/");
        expect(listed.map((f) => [f.path, f.size])).toEqual([["data/a/x.bin", 5]]);
        expect(listed[0]!.modifiedMs).toBeGreaterThan(0);
        await expectAvaError(files.write("data/a/x.bin", bytes(0)), "IO_ERROR", /exists/);
        expect([...(await files.read("data/a/x.bin"))]).toEqual([1, 2, 3, 4, 5]);
        await files.delete("data/a/x.bin");
        await files.delete("data/a/x.bin"); // deleting twice is fine
        await expectAvaError(files.read("data/a/x.bin"), "NOT_FOUND", /data\/a\/x\.bin/);
        expect(await files.list("data/a/")).toEqual([]);
      });
    });

    describe("Catalog", () => {
      it("commits atomically and another instance sees every commit", async () => {
        const location = await target.fresh();
        const a = location.open();
        const b = location.open();
        expect((await a.catalog.current()).version).toBe(0);
        const ns = await Docs.open({ storage: a });
        await ns.push();
        const version = (await a.catalog.current()).version;
        await ns.push(); // idempotent: nothing new is committed
        expect((await a.catalog.current()).version).toBe(version);
        await ns.telemetry.append(telemetry("x", 0, 10));
        const seenByB = await b.catalog.current();
        expect(seenByB.tables["docs.telemetry"]!.history.snapshots).toHaveLength(1);
        expect(seenByB.tables["docs.telemetry"]!.history.liveFiles).toHaveLength(1);
      });

      it("appends through an instance that read the catalog before the table was pushed elsewhere", async () => {
        const location = await target.fresh();
        const early = await Docs.open({ storage: location.open() });
        expect(await early.listTables()).toEqual([]); // this instance now holds a state with no tables
        await (await Docs.open({ storage: location.open() })).push();
        const res = await early.telemetry.append(telemetry("late", 0, 3));
        expect(res.snapshot.sequenceNumber).toBe(1);
      });

      it("rebases racing appends from independent instances: every commit lands once", async () => {
        const location = await target.fresh();
        const first = location.open();
        await (await Docs.open({ storage: first })).push();
        const writers = await Promise.all([0, 1, 2].map(() => Docs.open({ storage: location.open() })));
        await Promise.all(
          writers.map(async (ns, w) => {
            for (let i = 0; i < 8; i++) await ns.telemetry.append(telemetry(`w${w}`, i * 100, 5));
          }),
        );
        const ns = await Docs.open({ storage: location.open() });
        const history = await ns.telemetry.history();
        expect(history.map((s) => s.sequenceNumber)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
        expect(history.map((s) => s.parentId)).toEqual([null, ...history.slice(0, -1).map((s) => s.id)]);
        expect(history.at(-1)!.totalRows).toBe(120);
        const rows = await ns.telemetry.read();
        expect(rows.numRows).toBe(120);
        const keys = new Set(rows.toArray().map((r) => `${r.channel}:${r.ts}`));
        expect(keys.size).toBe(120);
      });

      it("refuses a commit whose expected snapshot moved, and changes nothing", async () => {
        const location = await target.fresh();
        const storage = location.open();
        const ns = await Docs.open({ storage });
        await ns.push();
        const first = await ns.telemetry.append(telemetry("x", 0, 3));
        await ns.telemetry.append(telemetry("x", 3, 3));
        const before = await storage.catalog.current();
        await expectAvaError(
          storage.catalog.commit([
            {
              op: "commitSnapshot",
              namespace: "docs",
              table: "telemetry",
              expectedCurrentId: first.snapshotId,
              snapshot: { id: "conflicting", operation: "append", timestampMs: Date.now(), addedFiles: [] },
            },
          ]),
          "COMMIT_CONFLICT",
          /docs\.telemetry/,
        );
        const after = await location.open().catalog.current();
        expect(after.version).toBe(before.version);
      });

      it("opens quickly and completely after many commits (checkpoints)", async () => {
        const location = await target.fresh();
        const ns = await Docs.open({ storage: location.open() });
        await ns.push();
        for (let i = 0; i < 130; i++) await ns.plain.append({ k: `k${i}`, v: i });
        const reopened = await Docs.open({ storage: location.open() });
        const history = await reopened.plain.history();
        expect(history).toHaveLength(130);
        expect((await reopened.plain.read()).numRows).toBe(130);
        expect((await reopened.plain.read({ snapshotId: history[9]!.id })).numRows).toBe(10);
      });
    });

    describe("tables on this storage", () => {
      it("appends, reads, travels in time, overwrites and vacuums orphans", async () => {
        const storage = (await target.fresh()).open();
        const ns = await Docs.open({ storage });
        await ns.push();
        const r1 = await ns.documents.append([doc(1), doc(2)]);
        const r2 = await ns.documents.append(doc(3));
        expect((await ns.documents.readModels()).map((d) => d.doc_id)).toEqual(["doc-1", "doc-2", "doc-3"]);
        expect((await ns.documents.read({ snapshotId: r1.snapshotId })).numRows).toBe(2);
        const over = await ns.documents.overwrite([doc(9)]);
        expect(over.snapshot.removedFiles).toHaveLength(2);
        expect((await ns.documents.readModels()).map((d) => d.doc_id)).toEqual(["doc-9"]);
        expect((await ns.documents.read({ snapshotId: r2.snapshotId })).numRows).toBe(3);

        await storage.files.write("data/docs/documents/orphan.parquet", bytes(1, 2, 3));
        const { removed } = await ns.vacuum({ olderThanMs: 0 });
        expect(removed).toContain("data/docs/documents/orphan.parquet");
        expect(
          removed.some((p) => p.endsWith(".parquet") && p !== "data/docs/documents/orphan.parquet"),
        ).toBe(false);
        // Files of earlier snapshots are still referenced by history: time travel keeps working.
        expect((await ns.documents.read({ snapshotId: r1.snapshotId })).numRows).toBe(2);
      });

      it("names a missing data file when it is read", async () => {
        const storage = (await target.fresh()).open();
        const ns = await Docs.open({ storage });
        await ns.push();
        // 12 rows: over the inlining limit (10), so a data file.
        const r = await ns.telemetry.append(telemetry("x", 0, 12));
        const path = r.snapshot.addedFiles[0]!.path;
        await storage.files.delete(path);
        await expectAvaError(
          ns.telemetry.read(),
          "NOT_FOUND",
          new RegExp(path.replaceAll(".", "\\.")),
          /docs\.telemetry/,
        );
      });

      it("refuses a data file swapped for another one of the same row count (DATA_CORRUPT)", async () => {
        const storage = (await target.fresh()).open();
        const ns = await Docs.open({ storage });
        await ns.push();
        const a = (await ns.telemetry.append(telemetry("a", 0, 12))).snapshot.addedFiles[0]!.path;
        const b = (await ns.telemetry.append(telemetry("a-much-longer-channel", 0, 12))).snapshot
          .addedFiles[0]!;
        const other = await storage.files.read(b.path);
        await storage.files.delete(a);
        await storage.files.write(a, other);
        const fresh = await Docs.open({ storage: storage });
        await expectAvaError(
          fresh.telemetry.read(),
          "DATA_CORRUPT",
          new RegExp(a.replaceAll(".", "\\.")),
          /bytes/,
        );
      });

      it("names a corrupt data file when it is read", async () => {
        const storage = (await target.fresh()).open();
        const ns = await Docs.open({ storage });
        await ns.push();
        const r = await ns.telemetry.append(telemetry("x", 0, 12)); // a data file, not inlined
        const path = r.snapshot.addedFiles[0]!.path;
        const good = await storage.files.read(path);
        await storage.files.delete(path);
        await storage.files.write(path, good.subarray(0, good.length - 20));
        await expectAvaError(ns.telemetry.read(), "DATA_CORRUPT", new RegExp(path.replaceAll(".", "\\.")));
      });
    });
  });
}
