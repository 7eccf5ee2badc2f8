// Catalog cleanup without a checkpoint (what the background flush calls after every flush) lists the
// checkpoints only when one can be old enough to clean up to: until then it returns at once. Real files,
// two catalog instances on one folder, a clock moved by hand.
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import * as ava from "../../src/index.js";
import type { Storage } from "../../src/index.js";
import { LogCatalog } from "../../src/storage/catalog/log-catalog.js";
import { NodeCatalogLog } from "../../src/storage/node/node-catalog-log.js";
import { NodeFileStore } from "../../src/storage/node/node-file-store.js";
import { z } from "zod";

const Docs = ava.defineNamespace({
  name: "docs",
  tables: { plain: ava.table({ schema: z.object({ k: z.string() }), inline: false }) },
});

const GRACE = 60_000;
let t = 1_000_000_000;
const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

/** A storage on `root` whose catalog checkpoints every 5 commits, and a count of its checkpoint listings. */
function storageAt(root: string): { storage: Storage; catalog: LogCatalog; listings: () => number } {
  const log = new NodeCatalogLog(root, false);
  let listings = 0;
  const heads = log.checkpointHeads.bind(log);
  log.checkpointHeads = (bytes: number) => {
    listings++;
    return heads(bytes);
  };
  const catalog = new LogCatalog(log, { checkpointEvery: 5, checkpointGrowth: 0, now: () => t });
  return {
    storage: {
      descriptor: { kind: "node", root },
      files: new NodeFileStore(root, false),
      catalog,
      now: () => t,
    },
    catalog,
    listings: () => listings,
  };
}

const entries = async (root: string) => (await readdir(join(root, "_catalog", "log"))).length;

it("a cleanup without a checkpoint lists the checkpoints only once one can be graceMs old", async () => {
  const root = await mkdtemp(join(tmpdir(), "ava-cleanup-"));
  roots.push(root);
  const a = storageAt(root);
  const ns = await Docs.open({ storage: a.storage });
  await ns.push();
  for (let i = 0; i < 12; i++) await ns.plain.append({ k: `a${i}` });
  await a.catalog.current();
  const before = await entries(root);

  // Nothing is graceMs old yet: the first call lists and finds nothing to remove, later ones do not list.
  expect(await a.catalog.cleanup(GRACE, { checkpoint: false })).toEqual([]);
  const listed = a.listings();
  t += GRACE - 1;
  expect(await a.catalog.cleanup(GRACE, { checkpoint: false })).toEqual([]);
  expect(a.listings()).toBe(listed);
  // Another grace period is another question: it lists.
  expect(await a.catalog.cleanup(GRACE / 2, { checkpoint: false })).not.toEqual([]);
  expect(a.listings()).toBe(listed + 1);

  // Another instance on the same folder commits and checkpoints later: its checkpoint becomes due later,
  // and the first instance cleans up to it once it is.
  const b = storageAt(root);
  const other = await Docs.open({ storage: b.storage });
  for (let i = 0; i < 10; i++) await other.plain.append({ k: `b${i}` });
  t += GRACE + 1;
  const removed = await a.catalog.cleanup(GRACE, { checkpoint: false });
  expect(removed.length).toBeGreaterThan(0);
  expect(await entries(root)).toBeLessThan(before + 10);

  // Every row still reads back exactly once from a fresh instance.
  const fresh = await Docs.open({ storage: storageAt(root).storage });
  const keys = (await fresh.plain.scan().toObjects()).map((r) => r.k).sort();
  expect(keys).toEqual(
    [
      ...Array.from({ length: 12 }, (_, i) => `a${i}`),
      ...Array.from({ length: 10 }, (_, i) => `b${i}`),
    ].sort(),
  );
});

it("a cleanup that writes a checkpoint (maintain's) always lists", async () => {
  const root = await mkdtemp(join(tmpdir(), "ava-cleanup-"));
  roots.push(root);
  const a = storageAt(root);
  const ns = await Docs.open({ storage: a.storage });
  await ns.push();
  for (let i = 0; i < 6; i++) await ns.plain.append({ k: `a${i}` });
  await a.catalog.cleanup(GRACE, { checkpoint: false });
  const listed = a.listings();
  await a.catalog.cleanup(GRACE);
  expect(a.listings()).toBeGreaterThan(listed);
});
