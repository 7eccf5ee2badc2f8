// Runs inside a module Worker in headless Chromium: tables on browserStorage (OPFS through synchronous
// access handles + IndexedDB catalog) beside the same rows as objects in IndexedDB. Posts timings in ms.
import { openDB } from "idb";
import * as ava from "../../src/index.js";
import { encodeParquet } from "../../src/parquet/parquet.js";
import { BATCH, makeBatch, makeObjects, schema } from "../data.js";

const BATCHES = 10;
const RUNS = 3;

const Bench = ava.defineNamespace({ name: "bench", tables: { points: ava.table({ schema }) } });

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

type SyncHandle = { write(b: Uint8Array, o: { at: number }): number; flush(): void; close(): void };

async function writeOpfs(dir: FileSystemDirectoryHandle, name: string, bytes: Uint8Array): Promise<void> {
  const file = await dir.getFileHandle(name, { create: true });
  const access = await (
    file as unknown as { createSyncAccessHandle(): Promise<SyncHandle> }
  ).createSyncAccessHandle();
  access.write(bytes, { at: 0 });
  access.flush();
  access.close();
}

self.onmessage = async () => {
  try {
    const batches = Array.from({ length: BATCHES }, (_, b) => makeBatch(b));
    const small = makeBatch(0, 100);
    const out: Record<string, number[]> = {
      append: [],
      raw: [],
      scan: [],
      idbPut: [],
      idbGetAll: [],
      small: [],
      rawSmall: [],
    };
    const root = await navigator.storage.getDirectory();
    for (let run = 0; run < RUNS; run++) {
      const name = `bench${run}${Date.now()}`;
      const ns = await Bench.open({ storage: ava.browserStorage({ name, persist: false }) });
      await ns.push();
      out.append!.push(
        await timed(async () => {
          for (const b of batches) await ns.points.append(b);
        }),
      );
      // The floor: parquet-wasm encoding the same batches and OPFS writing them, with no library around.
      const rawDir = await root.getDirectoryHandle(`raw-${name}`, { create: true });
      out.raw!.push(
        await timed(async () => {
          for (const [i, b] of batches.entries())
            await writeOpfs(rawDir, `${i}.parquet`, await encodeParquet(b));
        }),
      );
      out.scan!.push(
        await timed(async () => {
          if ((await ns.points.read()).numRows !== BATCH * BATCHES) throw new Error("scan lost rows");
        }),
      );

      // What offline apps do today: objects in IndexedDB, 100k-row bulk puts in one transaction each.
      const db = await openDB(`idb-${name}`, 1, {
        upgrade: (d) => d.createObjectStore("points", { keyPath: "id" }),
      });
      const objects = Array.from({ length: BATCHES }, (_, b) => makeObjects(b));
      out.idbPut!.push(
        await timed(async () => {
          for (const rows of objects) {
            const tx = db.transaction("points", "readwrite");
            for (const row of rows) void tx.store.put(row);
            await tx.done;
          }
        }),
      );
      out.idbGetAll!.push(
        await timed(async () => {
          if ((await db.getAll("points")).length !== BATCH * BATCHES) throw new Error("idb lost rows");
        }),
      );
      db.close();
    }
    // Small commits, one after another, on one storage.
    const ns = await Bench.open({
      storage: ava.browserStorage({ name: `small${Date.now()}`, persist: false }),
    });
    await ns.push();
    for (let i = 0; i < 1000; i++) {
      const t0 = performance.now();
      await ns.points.append(small);
      out.small!.push(performance.now() - t0);
    }
    const rawDir = await root.getDirectoryHandle(`raw-small${Date.now()}`, { create: true });
    for (let i = 0; i < 1000; i++) {
      const t0 = performance.now();
      await writeOpfs(rawDir, `${i}.parquet`, await encodeParquet(small));
      out.rawSmall!.push(performance.now() - t0);
    }
    postMessage({ ok: true, timings: out });
  } catch (err) {
    postMessage({ ok: false, error: String((err as Error).stack ?? err) });
  }
};
