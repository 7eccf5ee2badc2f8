// The warehouse storage across processes and failures, on real servers (s3rver + a Postgres cluster):
// 4 processes appending through one catalog and one bucket lose and duplicate nothing; a writer killed
// with SIGKILL leaves the state before its commit or after it, never between; a Postgres restart mid-run
// fails appends with typed errors and then recovers; a commit whose answer is lost lands exactly once.
import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isAvaError } from "../../src/errors.js";
import { postgresCatalog, s3FileStore, type WarehouseDescriptor, warehouseStorage } from "../../src/node.js";
import { batchesOf, batchRows, Rel } from "../shared/rel.js";
import { exited, firstLine, startTsx } from "./fixtures/child-process.js";
import { cuttingProxy } from "./fixtures/cutting-proxy.js";
import { openWarehouse, useWarehouseServers } from "./fixtures/warehouse-servers.js";

const CHILD = join(import.meta.dirname, "fixtures", "warehouse-child.ts");

const servers = useWarehouseServers();
const pg = () => servers.pg();
const location = () => servers.location();

async function openRel(d: WarehouseDescriptor) {
  const ns = await Rel.open({ storage: openWarehouse(d) });
  await ns.push();
  return ns;
}

function startWriter(
  d: WarehouseDescriptor,
  writer: string,
  batches: number,
  rows: number,
  mode = "",
): ChildProcess {
  return startTsx(CHILD, [JSON.stringify(d), writer, String(batches), String(rows), mode]);
}

describe("warehouseStorage across processes", () => {
  it("4 processes appending 12 batches each through one catalog and bucket: every row exactly once", async () => {
    const d = location();
    await openRel(d);
    const results = await Promise.all(["w0", "w1", "w2", "w3"].map((w) => exited(startWriter(d, w, 12, 50))));
    for (const r of results) expect(r, r.stderr).toMatchObject({ code: 0 });

    const ns = await openRel(d);
    const history = await ns.batches.history();
    expect(history).toHaveLength(48);
    expect(history.map((s) => s.sequenceNumber)).toEqual(Array.from({ length: 48 }, (_, i) => i + 1));
    const rows = (await ns.batches.read()).toArray().map((r) => `${r.writer}/${r.batch}/${r.row}`);
    expect(rows).toHaveLength(4 * 12 * 50);
    expect(new Set(rows).size).toBe(rows.length);
  }, 240_000);

  it("a writer killed with SIGKILL before, in and after commits: each state is whole, orphans vacuum away", async () => {
    const d = location();
    await openRel(d);
    const modes = ["", "kill-after-write", "kill-in-commit", "kill-in-commit", "kill-in-commit"];
    for (const [round, mode] of modes.entries()) {
      const child = startWriter(d, `k${round}`, 0, 2_000, mode);
      const done = exited(child);
      await firstLine(child);
      if (mode === "") {
        await new Promise((r) => setTimeout(r, Math.random() * 200));
        child.kill("SIGKILL");
      }
      expect((await done).signal).toBe("SIGKILL");

      // A fresh instance, as another machine would open it: each committed batch whole, none half there.
      const ns = await openRel(d);
      const history = await ns.batches.history();
      expect(history.length).toBeGreaterThanOrEqual(round + 1);
      const last = await ns.batches.read();
      expect(last.numRows).toBe(history.at(-1)!.totalRows);
      const perBatch = batchesOf(last);
      expect([...perBatch.values()].every((n) => n === 2_000)).toBe(true);
      expect(perBatch.size).toBe(history.length);
    }
    const ns = await openRel(d);
    const history = await ns.batches.history();
    const referenced = new Set(history.flatMap((s) => s.addedFiles.map((f) => f.path)));
    await ns.vacuum({ olderThanMs: 0 });
    const inBucket = (await ns.storage.files.list("data/")).map((f) => f.path);
    expect(new Set(inBucket)).toEqual(referenced);
  }, 300_000); // each round starts a process (tsx, the S3 SDK, parquet-wasm): seconds on a busy machine
});

describe("warehouseStorage when Postgres restarts mid-run", () => {
  it("appends fail with IO_ERROR/UNAVAILABLE while it is down, then succeed; nothing lost, duplicated or partial", async () => {
    const d = location();
    const ns = await openRel(d);
    const succeeded: number[] = [];
    const failures: unknown[] = [];
    let stop = false;
    const writer = (async () => {
      for (let b = 0; !stop; b++) {
        try {
          await ns.batches.append(batchRows("r", b, 100));
          succeeded.push(b);
        } catch (err) {
          failures.push(err);
        }
      }
    })();
    await new Promise((r) => setTimeout(r, 500));
    // Down for 3 s: longer than the default retries (about 1.5 s), so some appends must fail.
    await pg().restart(3_000);
    const after = succeeded.length;
    await new Promise((r) => setTimeout(r, 1_000));
    stop = true;
    await writer;

    expect(failures.length).toBeGreaterThan(0);
    for (const err of failures) {
      expect(isAvaError(err), String(err)).toBe(true);
      expect(["IO_ERROR", "UNAVAILABLE"]).toContain((err as { code: string }).code);
    }
    expect(succeeded.length).toBeGreaterThan(after); // it recovered on its own
    const fresh = await openRel(d);
    const perBatch = batchesOf(await fresh.batches.read());
    for (const b of succeeded) expect(perBatch.get(`r/${b}`)).toBe(100); // every acknowledged append, once
    expect([...perBatch.values()].every((n) => n === 100)).toBe(true);
    expect((await fresh.batches.history()).length).toBe(perBatch.size);
  }, 60_000);
});

describe("warehouseStorage when a commit's answer is lost", () => {
  it("a connection cut after the INSERT reached the server: the writer asks, and the commit lands exactly once", async () => {
    const d = location();
    await openRel(d);
    const proxy = await cuttingProxy(pg().port);
    try {
      const viaProxy = pg().url().replace(`:${pg().port}/`, `:${proxy.port}/`);
      const ns = await Rel.open({
        storage: warehouseStorage({
          files: s3FileStore({ bucket: d.s3.bucket, prefix: d.s3.prefix, client: d.s3.client! }),
          catalog: postgresCatalog({ connectionString: viaProxy, schema: d.postgres.schema }),
        }),
      });
      await ns.batches.history(); // connected and caught up before the cut
      proxy.arm(/INSERT INTO "[^"]+"\.log/);
      const res = await ns.batches.append(batchRows("cut", 0, 10));
      expect(proxy.cuts).toBe(1); // the commit's answer really was lost
      await ns.batches.append(batchRows("cut", 1, 10)); // and the writer goes on normally

      const fresh = await openRel(d);
      const history = await fresh.batches.history();
      expect(history.map((s) => s.id)).toEqual([res.snapshotId, expect.any(String)]);
      expect([...batchesOf(await fresh.batches.read())]).toEqual([
        ["cut/0", 10],
        ["cut/1", 10],
      ]);
    } finally {
      await proxy.close();
    }
  });
});
