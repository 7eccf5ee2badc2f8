// browserStorage in real Chromium: the storage contract suite (the same one memory and Node storage run),
// plus what only a browser has: persistence, quota, plain Parquet files in OPFS.
import { tableFromIPC } from "apache-arrow";
import * as pq from "parquet-wasm";
import { expect, it } from "vitest";
import { type FileStore, browserStorage } from "../../src/index.js";
import { IndexedDbLog, openCatalogDB } from "../../src/storage/browser/indexeddb-log.js";
import { ulid } from "../../src/util/ids.js";
import { Docs, expectAvaError, telemetry } from "../shared/fixtures.js";
import { describeSchemaEvolution } from "../shared/schema-evolution-contract.js";
import { describeSubscriptions } from "../shared/subscribe-contract.js";
import { describeStorage } from "../shared/storage-contract.js";

const freshName = () => `t${ulid()}`;

describeStorage("browserStorage", {
  async fresh() {
    const name = freshName();
    return { open: () => browserStorage({ name, persist: false }) };
  },
});

describeSchemaEvolution("browserStorage", {
  async fresh() {
    const name = freshName();
    return { open: () => browserStorage({ name, persist: false }) };
  },
});

describeSubscriptions("browserStorage", {
  async fresh() {
    const name = freshName();
    return { open: () => browserStorage({ name, persist: false }) };
  },
});

it("requests persistence on first use and exposes the answer and the estimate", async () => {
  const storage = browserStorage({ name: freshName() });
  expect(typeof (await storage.persisted())).toBe("boolean"); // headless Chromium answers false
  const estimate = await storage.estimate();
  expect(estimate.quota).toBeGreaterThan(0);
});

it("stores plain Parquet in OPFS, readable by parquet-wasm with no library around it", async () => {
  const storage = browserStorage({ name: freshName(), persist: false });
  const ns = await Docs.open({ storage });
  await ns.push();
  const res = await ns.telemetry.append(telemetry("opfs", 0, 1000));
  const path = res.snapshot.addedFiles[0]!.path;
  const root = await navigator.storage.getDirectory();
  let dir = await (await root.getDirectoryHandle("avalanche")).getDirectoryHandle(storage.descriptor.name);
  const parts = path.split("/");
  for (const p of parts.slice(0, -1)) dir = await dir.getDirectoryHandle(p);
  const file = await (await dir.getFileHandle(parts.at(-1)!)).getFile();
  const init = (pq as { default?: unknown }).default;
  if (typeof init === "function") await init();
  const table = tableFromIPC(pq.readParquet(new Uint8Array(await file.arrayBuffer())).intoIPCStream());
  expect(table.numRows).toBe(1000);
  expect(table.schema.fields.map((f) => f.name)).toContain("_ava_updated_at");
});

/** A FileStore that lets the browser refuse a write at byte N, leaving the partial file behind as OPFS would. */
function refusingAt(files: FileStore, limit: number): FileStore {
  let used = 0;
  return {
    ...files,
    list: (p) => files.list(p),
    read: (p) => files.read(p),
    readRange: (p, o, l) => files.readRange(p, o, l),
    delete: (p) => files.delete(p),
    async write(path, bytes) {
      if (used + bytes.length <= limit) {
        used += bytes.length;
        return files.write(path, bytes);
      }
      await files.write(path, bytes.subarray(0, limit - used));
      used = limit;
      throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
    },
  };
}

it("a write the browser refuses is QUOTA_EXCEEDED; the catalog is unchanged and the table still reads", async () => {
  const real = browserStorage({ name: freshName(), persist: false });
  const ns = await Docs.open({ storage: real });
  await ns.push();
  const first = await ns.telemetry.append(telemetry("ok", 0, 500));
  const before = await real.catalog.current();

  const used = first.snapshot.addedFiles[0]!.sizeBytes;
  const limited = { ...real, files: refusingAt(real.files, used + 100) };
  const refusing = await Docs.open({ storage: limited });
  // Still within the limit: commits (inlined into the catalog entry, so no file is written for it).
  await refusing.telemetry.append(telemetry("small", 500, 1));
  const afterSmall = await real.catalog.current();
  await expectAvaError(
    refusing.telemetry.append(telemetry("too-big", 500, 5000)),
    "QUOTA_EXCEEDED",
    /docs\.telemetry/,
  );

  const after = await browserStorage({ name: real.descriptor.name, persist: false }).catalog.current();
  expect(after.version).toBe(afterSmall.version);
  expect(afterSmall.version).toBe(before.version + 1);
  expect((await ns.telemetry.read()).numRows).toBe(501);
  // The partial file was removed: only the committed one is left.
  expect((await real.files.list("data/")).map((f) => f.path)).toEqual([first.snapshot.addedFiles[0]!.path]);
});

it("refuses a storage name that could escape its folder", async () => {
  await expectAvaError(() => browserStorage({ name: "../escape" }), "INVALID_NAME");
});

it("a missing IndexedDB log entry with later ones is CATALOG_CORRUPT, and vacuum deletes nothing", async () => {
  const name = freshName();
  const ns = await Docs.open({ storage: browserStorage({ name, persist: false }) });
  await ns.push();
  // Versions 2..5, each a data file (11 rows: over the inlining limit), which vacuum must not delete.
  for (let i = 0; i < 4; i++)
    await ns.plain.append(Array.from({ length: 11 }, (_, j) => ({ k: `k${i}.${j}`, v: j })));
  const db = await openCatalogDB(name);
  await db.delete("log", 3);
  db.close();
  const fresh = await Docs.open({ storage: browserStorage({ name, persist: false }) });
  await expectAvaError(fresh.plain.history(), "CATALOG_CORRUPT", /entry 3 is missing/, /entry 4 exists/);
  await expectAvaError(fresh.vacuum({ olderThanMs: 0 }), "CATALOG_CORRUPT");
  const storage = browserStorage({ name, persist: false });
  expect(await storage.files.list("data/docs/plain/")).toHaveLength(4);
});

it("a log entry of the wrong shape is CATALOG_CORRUPT naming it", async () => {
  const name = freshName();
  const ns = await Docs.open({ storage: browserStorage({ name, persist: false }) });
  await ns.push();
  await ns.plain.append({ k: "a", v: 1 });
  const db = await openCatalogDB(name);
  await db.put("log", '{"ops":[null]}', 2);
  db.close();
  const fresh = await Docs.open({ storage: browserStorage({ name, persist: false }) });
  await expectAvaError(fresh.plain.history(), "CATALOG_CORRUPT", /IndexedDB log entry 2/, /ops\[0\]/);
});

it("publishing an IndexedDB log entry commits at once; a version already taken is refused and keeps its entry", async () => {
  const name = freshName();
  const db = await openCatalogDB(name);
  const log = new IndexedDbLog(() => Promise.resolve(db), "strict", name);
  // Each publish is one transaction, committed as soon as its add is queued (see IndexedDbLog.stage).
  expect(await (await log.stage('{"ops":[]}')).publish(1)).toBe(true);
  expect(await (await log.stage('{"ops":["second"]}')).publish(1)).toBe(false);
  expect(await (await log.stage('{"ops":["third"]}')).publish(2)).toBe(true);
  expect(await log.readFrom(1)).toEqual(['{"ops":[]}', '{"ops":["third"]}']);
  db.close();
});
