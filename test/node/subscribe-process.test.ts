// Change notifications across Node processes: a child process commits, and a subscriber in this process
// hears of every snapshot — through fs.watch on the catalog folder (the poll is set far away to prove it),
// and through the poll alone when the watch tells nothing.
import { spawn } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { type CommitEvent, LogCatalog, type Storage } from "../../src/index.js";
import { nodeStorage } from "../../src/node.js";
import { watchFolder } from "../../src/storage/node/catalog-watch.js";
import { NodeCatalogLog } from "../../src/storage/node/node-catalog-log.js";
import { Rel } from "../shared/rel.js";
import { waitFor } from "../shared/subscribe-contract.js";

const CHILD = join(import.meta.dirname, "fixtures", "append-child.ts");

function appendInChild(root: string, writer: string, batches: number): Promise<void> {
  const child = spawn(process.execPath, ["--import", "tsx", CHILD, root, writer, String(batches), "10"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  return new Promise((resolve, reject) =>
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`child exited ${code}: ${stderr}`)),
    ),
  );
}

it("hears every commit of a child process through fs.watch on the catalog folder", async () => {
  const root = await mkdtemp(join(tmpdir(), "ava-subscribe-proc-"));
  const ns = await Rel.open({ storage: nodeStorage({ root, pollMs: 3_600_000 }) });
  await ns.push();
  const events: CommitEvent[] = [];
  const stop = ns.batches.subscribe((e) => events.push(e));
  await appendInChild(root, "child", 8);
  await waitFor(() => events.length >= 8, "eight events from the child", 15_000);
  await new Promise((r) => setTimeout(r, 200));
  stop();
  expect(events.map((e) => e.sequenceNumber)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  const history = await ns.batches.history();
  expect(events.map((e) => e.snapshotId)).toEqual(history.map((s) => s.id));
}, 60_000);

it("falls back on the poll when the folder watch tells nothing", async () => {
  const root = await mkdtemp(join(tmpdir(), "ava-subscribe-poll-"));
  const quiet = await mkdtemp(join(tmpdir(), "ava-quiet-"));
  // The Node catalog log, but watching a folder that never changes: only the poll can find new commits.
  const log = new NodeCatalogLog(root, false);
  log.watch = (onChange) => watchFolder({ folder: quiet, ready: Promise.resolve(), pollMs: 100 }, onChange);
  const base = nodeStorage({ root });
  const storage: Storage = { descriptor: base.descriptor, files: base.files, catalog: new LogCatalog(log) };
  const ns = await Rel.open({ storage });
  await ns.push();
  const events: CommitEvent[] = [];
  const stop = ns.batches.subscribe((e) => events.push(e));
  await appendInChild(root, "child", 3);
  await waitFor(() => events.length >= 3, "three events from the child", 15_000);
  stop();
  expect(events.map((e) => e.sequenceNumber)).toEqual([1, 2, 3]);
}, 60_000);
