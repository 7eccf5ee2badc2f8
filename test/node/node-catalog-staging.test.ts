// With fsync on, the Node catalog stages small entries in files made and synced ahead of time
// (src/storage/node/staging-pool.ts): a commit overwrites blocks that already exist instead of creating a
// file, which is the journal commit a small append paid for. The entries these files become end in spaces;
// every reader trims them, so a table committed this way reads back exactly.
import { mkdtemp, readdir, readFile, stat, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defineNamespace, table } from "../../src/index.js";
import { nodeStorage } from "../../src/node.js";
import { MAX_SLOT_BYTES, POOL_PREFIX } from "../../src/storage/node/staging-pool.js";
import { telemetry, telemetrySchema } from "../shared/fixtures.js";
import { batchesOf, batchRows, Rel } from "../shared/rel.js";
import { exited, firstLine, startTsx } from "./fixtures/child-process.js";

const APPEND = join(import.meta.dirname, "fixtures", "append-child.ts");

async function until(ok: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
}

const Inl = defineNamespace({
  name: "inl",
  tables: { t: table({ schema: telemetrySchema, inline: { maxRows: 1000, maxBytes: 1 << 20 } }) },
});

const logDir = (root: string) => join(root, "_catalog", "log");
const tmpDir = (root: string) => join(root, "_catalog", "tmp");
const poolFiles = async (root: string) =>
  (await readdir(tmpDir(root))).filter((n) => n.startsWith(POOL_PREFIX));

/** Each log entry's file: its size, the blocks it occupies, and the length of its content. */
async function entries(root: string): Promise<{ size: number; blocks: number; content: number }[]> {
  const names = (await readdir(logDir(root))).sort();
  return Promise.all(
    names.map(async (n) => {
      const path = join(logDir(root), n);
      const { size, blocks } = await stat(path);
      return { size, blocks, content: (await readFile(path, "utf8")).trimEnd().length };
    }),
  );
}

async function rowsOf(root: string): Promise<string[]> {
  const ns = await Inl.open({ storage: nodeStorage({ root }) });
  const rows = (await ns.t.read()).toArray().map((r) => `${r.channel}:${r.ts}`);
  return rows.sort();
}

describe("Node catalog entries staged in pooled files (fsync on)", () => {
  // Processes committing at once through pooled files: multi-process.test.ts (fsync is on by default).
  it("small commits land in pooled files; a new instance reads every row back", async () => {
    const root = await mkdtemp(join(tmpdir(), "ava-staging-"));
    const ns = await Inl.open({ storage: nodeStorage({ root }) });
    await ns.push();
    const expected: string[] = [];
    for (let i = 0; i < 40; i++) {
      await ns.t.append(telemetry(`c${i % 3}`, i * 10, 5));
      for (let k = 0; k < 5; k++) expected.push(`c${i % 3}:${i * 10 + k}`);
    }
    expected.sort();
    const files = await entries(root);
    // The first commits find the pool still filling; most later ones take a pooled file: padded to whole
    // 4 KiB blocks, which a file of the entry's own size occupies too.
    const pooled = files.filter((f) => f.size > f.content);
    expect(pooled.length).toBeGreaterThan(20);
    for (const f of pooled) {
      expect(f.size % 4096).toBe(0);
      expect(f.size).toBe(Math.ceil(f.content / 4096) * 4096);
      expect(f.blocks * 512).toBe(f.size);
    }
    expect(files.some((f) => f.size === f.content)).toBe(true); // staged the usual way: exact size
    const text = await readFile(join(logDir(root), (await readdir(logDir(root))).sort().at(-1)!), "utf8");
    expect(text.endsWith(" ")).toBe(true);
    expect(JSON.parse(text).ops.length).toBeGreaterThan(0);
    expect(await poolFiles(root)).not.toHaveLength(0); // made ahead for the next commits

    expect(await rowsOf(root)).toEqual(expected);
  });

  it("an entry larger than a pooled file is staged in a file of its own size", async () => {
    const root = await mkdtemp(join(tmpdir(), "ava-staging-big-"));
    const ns = await Inl.open({ storage: nodeStorage({ root }) });
    await ns.push();
    for (let i = 0; i < 3; i++) await ns.t.append(telemetry("small", i, 1)); // the pool fills meanwhile
    const before = (await entries(root)).length;
    // 300 inlined rows with long channel names: an entry well past the largest pooled file
    await ns.t.append(telemetry("x".repeat(40), 1000, 300));
    const files = await entries(root);
    expect(files).toHaveLength(before + 1);
    expect(files.at(-1)!.content).toBeGreaterThan(MAX_SLOT_BYTES);
    expect(files.at(-1)!.size).toBe(files.at(-1)!.content);
    expect((await rowsOf(root)).length).toBe(303);
  });

  it("a pooled file removed before its turn costs nothing: the commit stages the usual way", async () => {
    const root = await mkdtemp(join(tmpdir(), "ava-staging-gone-"));
    const ns = await Inl.open({ storage: nodeStorage({ root }) });
    await ns.push();
    await ns.t.append(telemetry("a", 0, 2));
    await new Promise((r) => setTimeout(r, 200)); // the first batch is made
    for (const name of await poolFiles(root)) await unlink(join(tmpDir(root), name));
    await ns.t.append(telemetry("b", 10, 2));
    await ns.t.append(telemetry("c", 20, 2));
    expect(await rowsOf(root)).toEqual(["a:0", "a:1", "b:10", "b:11", "c:20", "c:21"]);
  });

  it("vacuum drains this process's pool, keeps a running process's, removes a killed one's; an exiting process removes its own", async () => {
    const root = await mkdtemp(join(tmpdir(), "ava-staging-vacuum-"));
    const ns = await Rel.open({ storage: nodeStorage({ root }) });
    await ns.push();
    await ns.batches.append(batchRows("p", 0, 2));
    const running = startTsx(APPEND, [root, "w", "0", "2"]); // appends until killed
    const done = exited(running);
    await firstLine(running);
    const theirs = async () => (await poolFiles(root)).filter((n) => n.startsWith(`pool-${running.pid}-`));
    await until(async () => (await theirs()).length >= 16);
    const mine = async () => (await poolFiles(root)).filter((n) => n.startsWith(`pool-${process.pid}-`));
    await until(async () => (await mine()).length > 0);

    const removed = await ns.storage.catalog.vacuum(0);
    expect(await mine()).toEqual([]); // drained: the next commit fills the pool again
    expect(removed.filter((p) => p.includes(`pool-${process.pid}-`)).length).toBeGreaterThan(0);
    expect((await theirs()).length).toBeGreaterThan(0); // a running process's files are its own

    running.kill("SIGKILL");
    expect((await done).signal).toBe("SIGKILL");
    const left = await theirs();
    expect((await ns.storage.catalog.vacuum(0)).sort()).toEqual(
      expect.arrayContaining(left.map((n) => `_catalog/tmp/${n}`)),
    );
    expect(await theirs()).toEqual([]);

    // A process that ends normally leaves no pool file behind.
    const quitting = startTsx(APPEND, [root, "q", "40", "2"]);
    expect((await exited(quitting)).code).toBe(0);
    expect((await poolFiles(root)).filter((n) => n.startsWith(`pool-${quitting.pid}-`))).toEqual([]);

    // Every batch any of them acknowledged reads back whole.
    const perBatch = batchesOf(await ns.batches.read());
    expect(perBatch.get("q/39")).toBe(2);
    expect([...perBatch.values()].every((n) => n === 2)).toBe(true);
  }, 60_000);
});
