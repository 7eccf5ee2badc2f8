// The maintenance contract on Node storage (files + a log of commit files, fsync on).
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defineNamespace, type Storage, table } from "../../src/index.js";
import { nodeStorage } from "../../src/node.js";
import { open } from "../../src/sql-node.js";
import { Docs, telemetry, telemetrySchema } from "../shared/fixtures.js";
import { describeMaintenance, soakAppends } from "../shared/maintenance-contract.js";
import { folderBytes } from "./fixtures/folder-bytes.js";

describeMaintenance("nodeStorage", {
  async fresh() {
    const root = await mkdtemp(join(tmpdir(), "ava-maint-"));
    return { open: (options = {}) => nodeStorage({ root, ...options }) };
  },
  catalogBytes: (storage: Storage) =>
    folderBytes(join((storage.descriptor as { root: string }).root, "_catalog")),
  soakAppends: soakAppends(),
});

describe("background maintenance across processes (catalog lease)", () => {
  it("one runner holds the lease; another skips until it is released or runs out", async () => {
    const root = await mkdtemp(join(tmpdir(), "ava-lease-"));
    let t = Date.UTC(2026, 0, 1);
    const now = () => t;
    const a = await Docs.open({
      storage: nodeStorage({ root, now }),
      maintenance: { auto: true, intervalMs: 60_000, retain: false },
    });
    await a.push();
    for (let i = 0; i < 4; i++) await a.telemetry.append(telemetry("l", i * 10, 2));
    const b = await Docs.open({
      storage: nodeStorage({ root, now }),
      maintenance: { auto: true, intervalMs: 60_000, retain: false },
    });
    expect(await a.maintenance!.runNow()).toMatchObject({ filesCompacted: 4 });
    expect(await b.maintenance!.runNow()).toBeUndefined(); // a holds the lease for 3 intervals
    t += 4 * 60_000; // a's lease ran out (its process might have died)
    expect(await b.maintenance!.runNow()).toBeDefined();
    expect(await a.maintenance!.runNow()).toBeUndefined(); // now b holds it
    await b.maintenance!.stop(); // gives the lease up
    expect(await a.maintenance!.runNow()).toBeDefined();
    await a.maintenance!.stop();
    expect((await a.telemetry.read()).numRows).toBe(8);
  });
});

describe("inlined appends in SQL", () => {
  it("DuckDB sees inlined rows like file rows, at the current and at a pinned snapshot, before and after a flush", async () => {
    const root = await mkdtemp(join(tmpdir(), "ava-inline-sql-"));
    const Inl = defineNamespace({
      name: "inl",
      tables: { t: table({ schema: telemetrySchema, inline: true }) },
    });
    const ns = await Inl.open({ storage: nodeStorage({ root }) });
    await ns.push();
    const first = await ns.t.append(telemetry("a", 0, 3));
    await ns.t.append(telemetry("b", 10, 4));
    await ns.t.append(telemetry("c", 100, 20)); // a file
    const db = await open(ns);
    try {
      const q = async (d: typeof db) =>
        (
          await d.query("SELECT channel, count(*)::INT AS n FROM t GROUP BY channel ORDER BY channel")
        ).toArray();
      expect((await q(db)).map((r) => [r.channel, r.n])).toEqual([
        ["a", 3],
        ["b", 4],
        ["c", 20],
      ]);
      expect((await q(db.at({ t: first.snapshotId }))).map((r) => [r.channel, r.n])).toEqual([["a", 3]]);
    } finally {
      await db.close();
    }
    // Once flushed, the snapshots that added them read their slices of the flushed file, in SQL too.
    await ns.maintain({ flush: { maxRows: 1 }, compact: false, retain: false });
    const history = await ns.t.history();
    expect(history.at(-1)!.operation).toBe("compact");
    expect(history[0]!.addedFiles[0]!.flushedTo).toBeDefined();
    const after = await open(ns);
    try {
      const at = await after.at({ t: first.snapshotId }).query("SELECT channel, ts FROM t ORDER BY ts");
      expect(at.toArray().map((r) => [r.channel, Number(r.ts)])).toEqual([
        ["a", 0],
        ["a", 1],
        ["a", 2],
      ]);
      expect((await after.query("SELECT count(*)::INT AS n FROM t")).toArray()[0].n).toBe(27);
    } finally {
      await after.close();
    }
  });
});
