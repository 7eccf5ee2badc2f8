// Node storage writes the Parquet files of flushes and compactions on a worker thread: the bytes must be
// exactly those parquet-wasm writes on the calling thread, rows it refuses must fail as they would there,
// and a flush through nodeStorage must really go through the thread.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as A from "apache-arrow";
import { describe, expect, it } from "vitest";
import * as ava from "../../src/index.js";
import { nodeStorage } from "../../src/node.js";
import { decodeParquet, encodeIpcHere, writerSpec } from "../../src/parquet/parquet.js";
import { parquetThreadWrites, threadParquetEncoder } from "../../src/storage/node/parquet-thread.js";

const table = new A.Table({
  sensor: A.vectorFromArray(
    Array.from({ length: 3000 }, (_, i) => `s${i % 7}`),
    new A.Utf8(),
  ),
  ts: A.makeVector(BigInt64Array.from({ length: 3000 }, (_, i) => BigInt(i) * 1000n)),
  value: A.makeVector(Float64Array.from({ length: 3000 }, (_, i) => Math.sin(i))),
});

describe("the Parquet thread", () => {
  it("writes the bytes parquet-wasm writes on this thread, for every codec", async () => {
    const ipc = A.tableToIPC(table, "stream");
    for (const compression of ["zstd", "snappy", "uncompressed"] as const) {
      const spec = writerSpec(table.schema, compression);
      const before = parquetThreadWrites();
      const there = await threadParquetEncoder(ipc, spec);
      expect(parquetThreadWrites()).toBe(before + 1);
      expect(there).toEqual(await encodeIpcHere(ipc, spec));
    }
    // The caller's bytes are left as they were (the thread got a copy).
    expect(ipc.byteLength).toBeGreaterThan(0);
    expect(A.tableFromIPC(ipc).numRows).toBe(3000);
  });

  it("fails rows parquet-wasm refuses as a write here would, and keeps working", async () => {
    const spec = writerSpec(table.schema, "zstd");
    const garbage = new Uint8Array(64).fill(7);
    await expect(threadParquetEncoder(garbage, spec)).rejects.toThrow();
    await expect(encodeIpcHere(garbage, spec)).rejects.toThrow();
    const before = parquetThreadWrites();
    await threadParquetEncoder(A.tableToIPC(table, "stream"), spec);
    expect(parquetThreadWrites()).toBe(before + 1);
  });

  it("writes the background flush of a Node storage's inlined appends", async () => {
    const schema = new A.Schema([new A.Field("n", new A.Int32(), false)]);
    const Def = ava.defineNamespace({
      name: "pt",
      tables: { t: ava.table({ schema, inline: { flush: { maxRows: 50 } } }) },
    });
    const root = await mkdtemp(join(tmpdir(), "ava-parquet-thread-"));
    const storage = nodeStorage({ root, fsync: false });
    const ns = await Def.open({ storage });
    await ns.push();
    const before = parquetThreadWrites();
    for (let i = 0; i < 6; i++)
      await ns.t.append(
        new A.Table({ n: A.makeVector(Int32Array.from({ length: 10 }, (_, k) => i * 10 + k)) }),
      );
    await ns.t.inlineFlush.idle();
    expect(ns.t.inlineFlush.runs).toBe(1);
    expect(parquetThreadWrites()).toBeGreaterThan(before);
    const live = (await storage.catalog.current()).tables["pt.t"]!.history.liveFiles;
    const file = live.find((f) => f.path.endsWith(".parquet"))!;
    const rows = await decodeParquet(await storage.files.read(file.path));
    // The flush took the inlined appends there were when it ran: 50 rows or more, in order.
    expect(file.rowCount).toBeGreaterThanOrEqual(50);
    expect(Array.from(rows.getChild("n")!.toArray())).toEqual(
      Array.from({ length: file.rowCount }, (_, i) => i),
    );
    expect(Array.from((await ns.t.scan().toArrow()).getChild("n")!.toArray())).toEqual(
      Array.from({ length: 60 }, (_, i) => i),
    );
  });
});
