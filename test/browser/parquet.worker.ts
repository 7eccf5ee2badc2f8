// Runs inside a module Worker: a Parquet round trip through the library, proving parquet-wasm loads there.
import * as A from "apache-arrow";
import { decodeParquet, encodeParquet } from "../../src/parquet/parquet.js";

self.onmessage = async (event: MessageEvent<{ n: number }>) => {
  try {
    const n = event.data.n;
    const table = A.tableFromArrays({
      id: BigInt64Array.from({ length: n }, (_, i) => BigInt(i)),
      value: Float64Array.from({ length: n }, (_, i) => i / 4),
    });
    const bytes = await encodeParquet(table, { compression: "zstd" });
    const back = await decodeParquet(bytes);
    let sum = 0;
    for (const v of back.getChild("value")!) sum += v as number;
    postMessage({
      ok: true,
      rows: back.numRows,
      sum,
      bytes: bytes.length,
      isWorker: typeof (self as unknown as { document?: unknown }).document === "undefined",
    });
  } catch (e) {
    postMessage({ ok: false, error: String(e) });
  }
};
