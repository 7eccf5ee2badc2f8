import { expect, it } from "vitest";

it("round-trips Parquet inside a module Worker", async () => {
  const worker = new Worker(new URL("./parquet.worker.ts", import.meta.url), { type: "module" });
  try {
    const result = await new Promise<Record<string, unknown>>((resolve, reject) => {
      worker.onmessage = (e) => resolve(e.data);
      worker.onerror = (e) => reject(new Error(e.message));
      worker.postMessage({ n: 10_000 });
    });
    expect(result).toMatchObject({ ok: true, rows: 10_000, isWorker: true });
    expect(result.sum).toBe((9_999 * 10_000) / 2 / 4);
  } finally {
    worker.terminate();
  }
});

it("runs in a real browser with OPFS and IndexedDB available", async () => {
  expect(typeof navigator.storage.getDirectory).toBe("function");
  expect(typeof indexedDB.open).toBe("function");
});
