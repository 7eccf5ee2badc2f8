// The IndexedDB catalog's checkpoints are OPFS files named by small IndexedDB records
// (checkpoint-files.ts): a fresh open reads the same state from them, a catalog whose checkpoints are the
// bytes themselves (written before) still opens, a record whose file is missing or cut short is
// CATALOG_CORRUPT naming the file, a writer killed mid-write leaves no record (and no file), and cleanup
// deletes the files with their records and the orphans older than what it keeps.
import { expect, it } from "vitest";
import { browserStorage } from "../../src/index.js";
import {
  CHECKPOINT_FOLDER,
  CheckpointFiles,
  isCheckpointFile,
} from "../../src/storage/browser/checkpoint-files.js";
import { IndexedDbLog, openCatalogDB } from "../../src/storage/browser/indexeddb-log.js";
import { pageWriter } from "../../src/storage/browser/opfs-write-worker.js";
import { OpfsFileStore } from "../../src/storage/browser/opfs-file-store.js";
import { ulid } from "../../src/util/ids.js";
import { expectAvaError } from "../shared/fixtures.js";
import { batchRows, Rel } from "../shared/rel.js";

function bytesOf(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 31 + seed) & 255;
  return out;
}

/** A storage name, its OPFS files and its catalog's log, opened directly. */
async function bareLog() {
  const name = `cf${ulid()}`;
  const files = browserStorage({ name, persist: false }).files as OpfsFileStore;
  const db = await openCatalogDB(name);
  const log = new IndexedDbLog(() => Promise.resolve(db), "default", name, files);
  const listed = async () =>
    (await files.list(`${CHECKPOINT_FOLDER}/`)).map((f) => f.path.slice(CHECKPOINT_FOLDER.length + 1)).sort();
  return { name, files, db, log, listed };
}

/** A catalog that wrote a checkpoint (the commit at version ~100 does), and its appender's namespace. */
async function checkpointed() {
  const name = `cf${ulid()}`;
  const ns = await Rel.open({ storage: browserStorage({ name, persist: false }) });
  await ns.push();
  for (let i = 0; i < 110; i++) await ns.batches.append(batchRows(`r${i}`, 0, 2));
  const db = await openCatalogDB(name);
  // The checkpoint is written in the background: its record appears once its file is whole.
  while ((await db.getAllKeys("checkpoints")).length === 0) await new Promise((r) => setTimeout(r, 5));
  const [version] = await db.getAllKeys("checkpoints");
  return { name, ns, db, version: version! };
}

async function sameTable(name: string, ns: Awaited<ReturnType<typeof checkpointed>>["ns"]) {
  const fresh = await Rel.open({ storage: browserStorage({ name, persist: false }) });
  expect((await fresh.batches.history()).map((s) => s.id)).toEqual(
    (await ns.batches.history()).map((s) => s.id),
  );
  expect((await fresh.batches.read()).numRows).toBe(220);
}

it("a checkpoint is an OPFS file named by its IndexedDB record, and a fresh open reads the same state from it", async () => {
  const { name, ns, db, version } = await checkpointed();
  expect(version).toBeGreaterThanOrEqual(100);
  const record = await db.get("checkpoints", version);
  db.close();
  if (!isCheckpointFile(record)) throw new Error("the checkpoint's record holds no file name");
  const files = browserStorage({ name, persist: false }).files;
  const path = `${CHECKPOINT_FOLDER}/${record.file}`;
  const bytes = await files.read(path);
  expect(bytes.length).toBe(record.size);
  expect(record.head).toEqual(bytes.slice(0, record.head.length));
  expect(new TextDecoder().decode(bytes.subarray(0, 20))).toMatch(/^\{"writtenMs":\d+/);
  await sameTable(name, ns);
});

it("a catalog whose checkpoint record holds the state's bytes (as catalogs were written before) still opens", async () => {
  const { name, ns, db, version } = await checkpointed();
  const files = browserStorage({ name, persist: false }).files;
  const record = await db.get("checkpoints", version);
  if (!isCheckpointFile(record)) throw new Error("the checkpoint's record holds no file name");
  const path = `${CHECKPOINT_FOLDER}/${record.file}`;
  await db.put("checkpoints", await files.read(path), version);
  await files.delete(path); // the old format had no file: opening must not look for one
  db.close();
  await sameTable(name, ns);
});

it("a record whose file is missing, or shorter than recorded, is CATALOG_CORRUPT naming the file", async () => {
  const { name, db, version } = await checkpointed();
  const files = browserStorage({ name, persist: false }).files;
  const record = await db.get("checkpoints", version);
  if (!isCheckpointFile(record)) throw new Error("the checkpoint's record holds no file name");
  const path = `${CHECKPOINT_FOLDER}/${record.file}`;
  await db.put("checkpoints", { ...record, size: record.size + 1 }, version);
  const open = () =>
    Rel.open({ storage: browserStorage({ name, persist: false }) }).then((n) => n.batches.read());
  await expectAvaError(open(), "CATALOG_CORRUPT", new RegExp(`${record.file}.*${record.size} bytes`));
  await db.put("checkpoints", record, version);
  await files.delete(path);
  db.close();
  await expectAvaError(open(), "CATALOG_CORRUPT", new RegExp(`${record.file} is missing`));
});

it("a writer Worker killed mid-write leaves no record and no file; the next checkpoint is written", async () => {
  const { db, log, listed } = await bareLog();
  const big = bytesOf(4_000_000, 1);
  const writing = log.writeCheckpoint(7, big);
  // Killed while it holds the write (the request reaches it on its first task).
  while (pageWriter().pending === 0) await new Promise((r) => setTimeout(r, 0));
  pageWriter().terminate();
  await expectAvaError(writing, "IO_ERROR");
  expect(await db.getAllKeys("checkpoints")).toEqual([]);
  // The file it began is removed (retried while the dead Worker's lock lasts).
  while ((await listed()).length > 0) await new Promise((r) => setTimeout(r, 20));
  await log.writeCheckpoint(8, big);
  expect(await log.latestCheckpoint()).toEqual({ version: 8, state: big });
  db.close();
});

it("cleanup deletes checkpoint files with their records, and orphans written before what it keeps", async () => {
  const { db, log, files, listed } = await bareLog();
  const state = (n: number) => bytesOf(70_000 + n, n); // over the writer Worker's threshold
  for (const v of [10, 20, 30]) await log.writeCheckpoint(v, state(v));
  const orphans = new CheckpointFiles(files, 256); // files whose record was never put
  const early = await orphans.write(15, state(15));
  const late = await orphans.write(35, state(35));
  const recordFile = async (v: number) => ((await db.get("checkpoints", v)) as { file: string }).file;
  const [f10, f20, f30] = [await recordFile(10), await recordFile(20), await recordFile(30)];
  expect(await listed()).toEqual([f10, early.file, f20, f30, late.file]);

  const removed = await log.removeBefore(30);
  expect(await db.getAllKeys("checkpoints")).toEqual([30]);
  expect(await listed()).toEqual([f30, late.file]); // the newer orphan may still be getting its record
  for (const f of [f10, f20, early.file]) expect(removed).toContain(`${CHECKPOINT_FOLDER}/${f}`);
  expect((await log.latestCheckpoint())?.state).toEqual(state(30));

  await log.writeCheckpoint(40, state(40));
  await log.removeCheckpoints([30]);
  expect(await db.getAllKeys("checkpoints")).toEqual([40]);
  expect(await listed()).toEqual([late.file, await recordFile(40)]);
  db.close();
});
