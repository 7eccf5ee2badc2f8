// Catalog entries as records in preallocated segments (catalog-segments.ts): each entry's name is a hard
// link to its writer's segment, readers find the record by its version, and damage, lost races, idle
// writers, large entries and catalogs from before segments all read back exactly or fail as CATALOG_CORRUPT.
import { mkdtemp, open, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import * as ava from "../../src/index.js";
import { nodeStorage } from "../../src/node.js";
import { NodeCatalogLog } from "../../src/storage/node/node-catalog-log.js";
import { expectAvaError, telemetry, telemetrySchema } from "../shared/fixtures.js";

const Inl = ava.defineNamespace({
  name: "seg",
  tables: { t: ava.table({ schema: telemetrySchema, inline: { flush: false } }) },
});

const entry = (v: number) => `${String(v).padStart(20, "0")}.json`;
const roots: string[] = [];
afterEach(async () => {
  for (const r of roots.splice(0)) await rm(r, { recursive: true, force: true });
});

async function freshRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "ava-segments-"));
  roots.push(root);
  return root;
}

/** `n` inlined appends of 10 rows (versions 2…n+1), one channel each. */
async function appended(root: string, n: number, fsync = false) {
  const ns = await Inl.open({ storage: nodeStorage({ root, fsync }) });
  await ns.push();
  for (let i = 0; i < n; i++) await ns.t.append(telemetry(`c${i}`, i * 10, 10));
  return ns;
}

/** Where the record of `version` starts in a segment's bytes: records follow a 64-byte header, 8-aligned. */
function recordAt(segment: Buffer, version: number): number {
  for (let at = 64; segment.readUInt32LE(at) === 0x52415641; ) {
    if (segment.readDoubleLE(at + 8) === version) return at;
    at += 24 + ((segment.readUInt32LE(at + 4) + 7) & ~7);
  }
  throw new Error(`no record of version ${version}`);
}

const channels = async (root: string) => {
  const ns = await Inl.open({ storage: nodeStorage({ root }) });
  return new Set((await ns.t.read()).getChild("channel")!.toArray() as string[]);
};

describe("entries in segments", () => {
  it("are hard links to their writer's segment, read back by a fresh process's reader", async () => {
    const root = await freshRoot();
    await appended(root, 20, true);
    const log = join(root, "_catalog", "log");
    const inodes = new Set<number>();
    for (const name of await readdir(log)) {
      const s = await stat(join(log, name));
      expect(s.nlink, name).toBeGreaterThan(1);
      inodes.add(s.ino);
    }
    expect(inodes.size).toBe(1); // 21 entries, one segment
    expect(await readdir(join(root, "_catalog", "tmp"))).toEqual([]); // no file per entry
    const head = await readFile(join(log, entry(5)));
    expect(head.subarray(0, 8).toString("latin1")).toBe("AVASEG01");
    expect((await channels(root)).size).toBe(20);
  });

  it("move to a new segment as one fills; a segment's file is its records and a little zeroed space", async () => {
    const root = await freshRoot();
    const log = new NodeCatalogLog(root, true);
    const texts = Array.from({ length: 300 }, (_, i) =>
      JSON.stringify({ ops: [], i, pad: "p".repeat(10_000) }),
    );
    for (const [i, text] of texts.entries()) {
      const staged = await log.stage(text, i + 1);
      expect(await staged.publish(i + 1)).toBe(true);
      await staged.discard();
    }
    const sizes = new Map<number, number>();
    for (const name of await readdir(join(root, "_catalog", "log"))) {
      const s = await stat(join(root, "_catalog", "log", name));
      sizes.set(s.ino, s.size);
    }
    expect(sizes.size).toBeGreaterThanOrEqual(6); // 3 MB of records, 512 KiB a segment
    for (const size of sizes.values()) expect(size).toBeLessThanOrEqual(512 * 1024 + 128 * 1024);
    // The segment in use (and perhaps the next one, made ahead): the retired ones' names are gone.
    expect((await readdir(join(root, "_catalog", "wal"))).length).toBeLessThanOrEqual(2);
    expect(await new NodeCatalogLog(root, false).readFrom(1)).toEqual(texts);
  });

  it("two writers on one folder race for versions: every commit lands once, each re-staged as needed", async () => {
    const root = await freshRoot();
    const a = await Inl.open({ storage: nodeStorage({ root, fsync: false }) });
    await a.push();
    const b = await Inl.open({ storage: nodeStorage({ root, fsync: false }) });
    const write = (ns: typeof a, who: string) =>
      (async () => {
        for (let i = 0; i < 40; i++) await ns.t.append(telemetry(`${who}${i}`, i, 10));
      })();
    await Promise.all([write(a, "a"), write(b, "b")]);
    const got = await channels(root);
    expect(got.size).toBe(80);
    expect((await readdir(join(root, "_catalog", "log"))).length).toBe(81);
    const inodes = new Set<number>();
    for (const name of await readdir(join(root, "_catalog", "log")))
      inodes.add((await stat(join(root, "_catalog", "log", name))).ino);
    expect(inodes.size).toBeGreaterThanOrEqual(2); // both writers won versions, each from its own segment
  });

  it("a writer whose segment's name vacuum removed (idle past the grace period) writes its next entry anew", async () => {
    const root = await freshRoot();
    const ns = await appended(root, 3);
    // Another process's vacuum: it cannot tell an idle writer from a dead one.
    const other = new NodeCatalogLog(root, false);
    const removed = await other.vacuum(0);
    expect(removed.some((p) => p.startsWith("_catalog/wal/"))).toBe(true);
    expect(await readdir(join(root, "_catalog", "wal"))).toEqual([]);
    await ns.t.append(telemetry("after", 0, 10));
    expect((await channels(root)).has("after")).toBe(true);
    expect((await channels(root)).size).toBe(4);
  });

  it("an idle writer lets its segment go (file closed, zeros cut off); its next entry starts a new one", async () => {
    const root = await freshRoot();
    const log = new NodeCatalogLog(root, true, 1000, 50);
    const publish = async (v: number) => {
      const staged = await log.stage(JSON.stringify({ ops: [], v }), v);
      expect(await staged.publish(v)).toBe(true);
      await staged.discard();
    };
    for (let v = 1; v <= 3; v++) await publish(v);
    const first = await stat(join(root, "_catalog", "log", entry(3)));
    expect(first.size).toBeGreaterThan(128 * 1024); // the zeros written ahead
    await new Promise((r) => setTimeout(r, 200));
    expect(await readdir(join(root, "_catalog", "wal"))).toEqual([]);
    const cut = await stat(join(root, "_catalog", "log", entry(3)));
    expect(cut.ino).toBe(first.ino);
    expect(cut.size).toBeLessThan(1024); // the header and three records
    await publish(4);
    expect((await stat(join(root, "_catalog", "log", entry(4)))).ino).not.toBe(first.ino);
    expect((await new NodeCatalogLog(root, false).readFrom(1)).map((t) => JSON.parse(t).v)).toEqual([
      1, 2, 3, 4,
    ]);
  });

  it("an entry too large for a segment is a JSON file of its own", async () => {
    const root = await freshRoot();
    const log = new NodeCatalogLog(root, false);
    const big = JSON.stringify({ ops: [], pad: "x".repeat(1_100_000) });
    const staged = await log.stage(big, 1);
    expect(await staged.publish(1)).toBe(true);
    await staged.discard();
    expect((await readFile(join(root, "_catalog", "log", entry(1)), "utf8")).length).toBe(big.length);
    expect(await new NodeCatalogLog(root, false).readFrom(1)).toEqual([big]);
  });

  it("an entry larger than a reader's 64 KiB scan is read whole, and the scan goes on after it", async () => {
    const root = await freshRoot();
    const log = new NodeCatalogLog(root, false);
    const texts = [100_000, 10, 200_000, 10].map((n, i) =>
      JSON.stringify({ ops: [], i, pad: "q".repeat(n) }),
    );
    for (const [i, text] of texts.entries()) {
      const staged = await log.stage(text, i + 1);
      expect(await staged.publish(i + 1)).toBe(true);
      await staged.discard();
    }
    expect((await stat(join(root, "_catalog", "log", entry(3)))).nlink).toBeGreaterThan(1); // in a segment
    expect(await new NodeCatalogLog(root, false).readFrom(1)).toEqual(texts);
  });

  it("a staged entry published as another version is written again, under that version", async () => {
    const root = await freshRoot();
    const log = new NodeCatalogLog(root, false);
    const staged = await log.stage('{"ops":[]}', 1);
    expect(await staged.publish(2)).toBe(true); // e.g. version 1 was lost to another writer
    await staged.discard();
    expect(await new NodeCatalogLog(root, false).readFrom(2)).toEqual(['{"ops":[]}']);
    expect(await readdir(join(root, "_catalog", "log"))).toEqual([entry(2)]);
  });
});

describe("damage and old catalogs", () => {
  it("a flipped byte in a record is CATALOG_CORRUPT naming the entry", async () => {
    const root = await freshRoot();
    await appended(root, 3);
    const file = join(root, "_catalog", "log", entry(3));
    const bytes = await readFile(file);
    const at = recordAt(bytes, 3) + 24 + 30; // a byte of the entry's text
    const handle = await open(file, "r+");
    await handle.write(Buffer.from([bytes[at]! ^ 1]), 0, 1, at);
    await handle.close();
    const ns = await Inl.open({ storage: nodeStorage({ root }) });
    await expectAvaError(ns.t.read(), "CATALOG_CORRUPT", /_catalog\/log\/0+3\.json/, /checksum/);
  });

  it("a segment cut short before an entry's record is CATALOG_CORRUPT naming the entry", async () => {
    const root = await freshRoot();
    await appended(root, 5);
    const file = join(root, "_catalog", "log", entry(6));
    const handle = await open(file, "r+");
    await handle.truncate(recordAt(await readFile(file), 6)); // the record and everything after it
    await handle.close();
    const ns = await Inl.open({ storage: nodeStorage({ root }) });
    await expectAvaError(
      ns.t.read(),
      "CATALOG_CORRUPT",
      /_catalog\/log\/0+6\.json/,
      /no record of version 6/,
    );
  });

  it("a writer killed mid-record leaves a torn tail no entry links to; the next writer goes on", async () => {
    const root = await freshRoot();
    await appended(root, 3);
    const [segment] = await readdir(join(root, "_catalog", "wal"));
    const file = join(root, "_catalog", "wal", segment!);
    const bytes = await readFile(file);
    const end = bytes.lastIndexOf(Buffer.from("}")) + 1;
    const handle = await open(file, "r+");
    // A record's header and the first bytes of its entry, as a kill between two pages would leave them.
    await handle.write(
      Buffer.from("AVAR\u00ff\u00ff\u0000\u0000garbage-torn-record", "latin1"),
      0,
      27,
      (end + 7) & ~7,
    );
    await handle.close();
    const ns = await Inl.open({ storage: nodeStorage({ root }) });
    await ns.t.append(telemetry("next", 0, 10));
    expect((await channels(root)).size).toBe(4);
  });

  it("entries written as JSON files (before segments) read back beside new ones", async () => {
    const root = await freshRoot();
    await appended(root, 2);
    const log = join(root, "_catalog", "log");
    // Rewrite every entry as the plain JSON file the log held before segments existed.
    const reader = new NodeCatalogLog(root, false);
    const texts = await reader.readFrom(1);
    for (const [i, text] of texts.entries()) {
      await rm(join(log, entry(i + 1)));
      await writeFile(join(log, entry(i + 1)), text);
    }
    await rm(join(root, "_catalog", "wal"), { recursive: true });
    const ns = await Inl.open({ storage: nodeStorage({ root }) });
    await ns.t.append(telemetry("new", 0, 10));
    expect([...(await channels(root))].sort()).toEqual(["c0", "c1", "new"]);
    expect((await stat(join(log, entry(4)))).nlink).toBeGreaterThan(1); // the new one is in a segment
  });
});
