// Checkpoints of the IndexedDB catalog written in pieces, in real Chromium: a state larger than a piece
// is written as pieces of at most that size (each its own transaction) and a record naming them, written
// last. It reopens to the same table; a checkpoint put whole (as before, and by a schema-1 database) still
// opens; a missing piece sets the checkpoint aside for a replay of the log (CATALOG_CORRUPT when the log
// cannot replace it); pieces a crash left without their record are read by nothing and cleanup removes
// them; a bad piece size is INVALID_ARGUMENT.
import { openDB } from "idb";
import { describe, expect, it } from "vitest";
import { browserStorage, type Storage } from "../../src/index.js";
import {
  CHECKPOINT_PART_BYTES,
  type CheckpointPieces,
  IndexedDbLog,
  openCatalogDB,
} from "../../src/storage/browser/indexeddb-log.js";
import { LogCatalog } from "../../src/storage/catalog/log-catalog.js";
import { ulid } from "../../src/util/ids.js";
import { expectAvaError } from "../shared/fixtures.js";
import { batchesOf, batchRows, Rel } from "../shared/rel.js";

/** browserStorage whose catalog checkpoints every 5 versions, in pieces of `pieceBytes`. */
function checkpointing(name: string, pieceBytes: number): Storage {
  const log = new IndexedDbLog(() => openCatalogDB(name), "default", name, { pieceBytes });
  return {
    ...browserStorage({ name, persist: false }),
    catalog: new LogCatalog(log, { checkpointEvery: 5, checkpointGrowth: 0 }),
  };
}

/** 12 inlined appends of 10 rows (versions 2..13: checkpoints at 5 and 10), then the table's ids. */
async function seeded(storage: Storage) {
  const ns = await Rel.open({ storage });
  await ns.push();
  for (let b = 0; b < 12; b++) await ns.batches.append(batchRows("w", b, 10));
  return (await ns.batches.history()).map((s) => s.id);
}

const reopened = (name: string) => Rel.open({ storage: browserStorage({ name, persist: false }) });

describe("IndexedDB checkpoints in pieces", () => {
  it("a state larger than a piece is written in pieces and reopens to the same table", async () => {
    const name = `cp${ulid()}`;
    const history = await seeded(checkpointing(name, 1024));
    const db = await openCatalogDB(name);
    const record = (await db.get("checkpoints", 10)) as CheckpointPieces;
    expect(record.parts).toBeGreaterThan(1);
    const pieces = await db.getAll("checkpointParts", IDBKeyRange.bound([10], [11], false, true));
    expect(pieces).toHaveLength(record.parts);
    expect(pieces.every((p) => p.length <= 1024)).toBe(true);
    expect(pieces.reduce((n, p) => n + p.length, 0)).toBe(record.bytes);
    db.close();
    const fresh = await reopened(name);
    expect((await fresh.batches.history()).map((s) => s.id)).toEqual(history);
    expect(batchesOf(await fresh.batches.read()).size).toBe(12);
  });

  it("the default piece is under Chromium's 64 KiB blob threshold; a bad piece size is INVALID_ARGUMENT", async () => {
    expect(CHECKPOINT_PART_BYTES).toBeLessThan(64 * 1024);
    for (const pieceBytes of [0, -1, Number.NaN, 1.5])
      await expectAvaError(
        () => new IndexedDbLog(() => openCatalogDB("x"), "default", "x", { pieceBytes }),
        "INVALID_ARGUMENT",
        /pieceBytes/,
      );
  });

  it("a checkpoint put whole still opens, and so does a schema-1 database", async () => {
    const name = `cp${ulid()}`;
    const history = await seeded(checkpointing(name, Number.POSITIVE_INFINITY));
    const db = await openCatalogDB(name);
    expect(await db.get("checkpoints", 10)).toBeInstanceOf(Uint8Array);
    const log = await db.getAll("log");
    const checkpoint = (await db.get("checkpoints", 10)) as Uint8Array;
    db.close();
    expect((await (await reopened(name)).batches.history()).map((s) => s.id)).toEqual(history);
    // The same catalog in a database as schema version 1 made it: no store of pieces.
    const old = `cp${ulid()}`;
    const v1 = await openDB(`avalanche:${old}`, 1, {
      upgrade(d) {
        d.createObjectStore("log");
        d.createObjectStore("checkpoints");
      },
    });
    for (const [i, entry] of log.entries()) await v1.put("log", entry, i + 1);
    await v1.put("checkpoints", checkpoint, 10);
    v1.close();
    const upgraded = await reopened(old);
    expect((await upgraded.batches.history()).map((s) => s.id)).toEqual(history);
    await upgraded.batches.append(batchRows("after", 0, 10));
    expect(batchesOf(await upgraded.batches.read()).size).toBe(13);
  });

  it("a missing piece: the log replaces the checkpoint, or CATALOG_CORRUPT once the log before it is gone", async () => {
    const name = `cp${ulid()}`;
    const history = await seeded(checkpointing(name, 1024));
    const db = await openCatalogDB(name);
    const [first] = await db.getAllKeys("checkpointParts", IDBKeyRange.bound([10], [11], false, true));
    await db.delete("checkpointParts", first!);
    expect((await (await reopened(name)).batches.history()).map((s) => s.id)).toEqual(history);
    await db.delete("log", IDBKeyRange.upperBound(5, true));
    db.close();
    await expectAvaError((await reopened(name)).batches.history(), "CATALOG_CORRUPT", /checkpoint 10/);
  });

  it("pieces a crash left without their record are read by nothing, and cleanup removes them", async () => {
    const name = `cp${ulid()}`;
    const history = await seeded(checkpointing(name, 1024));
    const db = await openCatalogDB(name);
    // A writer that stopped after two pieces of a checkpoint of version 12: garbage, never named.
    await db.put("checkpointParts", new Uint8Array([1, 2, 3]), [12, 7, 0]);
    await db.put("checkpointParts", new Uint8Array([4, 5, 6]), [12, 7, 1]);
    expect((await (await reopened(name)).batches.history()).map((s) => s.id)).toEqual(history);
    // Cleanup removes what a checkpoint newer than them covers: versions 14..16 write one at 15.
    const more = await Rel.open({ storage: checkpointing(name, 1024) });
    for (let b = 12; b < 15; b++) await more.batches.append(batchRows("w", b, 10));
    const removed = await more.storage.catalog.cleanup!(0);
    expect(removed).toContain("IndexedDB checkpoint 10");
    const left = await db.getAllKeys("checkpointParts");
    expect(left.every(([v]) => v === 15)).toBe(true); // the newest checkpoint's pieces, and only those
    expect(left.length).toBe(((await db.get("checkpoints", 15)) as CheckpointPieces).parts);
    db.close();
    // The cleaned-up catalog needs nothing it removed.
    expect(batchesOf(await (await reopened(name)).batches.read()).size).toBe(15);
  });
});
