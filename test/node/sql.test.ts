// SQL with native DuckDB in Node: on nodeStorage (DuckDB reads the Parquet files in place) and on memory
// storage (a private temp copy per file).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { memoryStorage, nodeStorage } from "../../src/node.js";
import { open } from "../../src/sql-node.js";
import { describeSql } from "../shared/sql-contract.js";

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
