// SQL with native DuckDB in Node: on nodeStorage (DuckDB reads the Parquet files in place) and on memory
// storage (a private temp copy per file).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { memoryStorage, nodeStorage } from "../../src/node.js";
import { open } from "../../src/sql-node.js";
import { describeSql, describeSqlHardening } from "../shared/sql-contract.js";

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describeSql("native DuckDB on nodeStorage", {
  open: (ns) => open(ns, { threads: 2 }),
  async storage() {
    const dir = await mkdtemp(join(tmpdir(), "ava-sql-"));
    dirs.push(dir);
    return nodeStorage({ root: dir, fsync: false });
  },
});

describeSql("native DuckDB on memoryStorage", {
  open: (ns) => open(ns, { threads: 2 }),
  storage: () => memoryStorage(),
});

describeSqlHardening("native DuckDB on nodeStorage", {
  open: (ns) => open(ns, { threads: 2 }),
  async storage() {
    const dir = await mkdtemp(join(tmpdir(), "ava-sql-"));
    dirs.push(dir);
    return nodeStorage({ root: dir, fsync: false });
  },
});

it("removes the temp folders of killed processes at the next open, never a live one's", async () => {
  const { spawnSync } = await import("node:child_process");
  const { mkdir, stat } = await import("node:fs/promises");
  const { Docs } = await import("../shared/fixtures.js");
  const dead = spawnSync(process.execPath, ["-e", ""]).pid!; // exited by now
  const stale = join(tmpdir(), `avalanche-sql-${dead}-stale`);
  const live = join(tmpdir(), `avalanche-sql-${process.ppid}-live`);
  await mkdir(stale, { recursive: true });
  await mkdir(live, { recursive: true });
  try {
    const ns = await Docs.open({ storage: memoryStorage() });
    const db = await open(ns, { threads: 1 });
    await db.close();
    await expect(stat(stale)).rejects.toThrow(/ENOENT/);
    expect((await stat(live)).isDirectory()).toBe(true);
  } finally {
    await rm(live, { recursive: true, force: true });
    await rm(stale, { recursive: true, force: true });
  }
});
