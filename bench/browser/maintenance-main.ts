// The maintenance bench page: small appends (10 rows) in a module Worker on browserStorage, a data file
// each vs inlined into the IndexedDB catalog entry. Leaves the per-commit timings on `window.__bench`.
import { report } from "./report.js";

await report(async () => {
  const worker = new Worker(new URL("./maintenance.worker.ts", import.meta.url), { type: "module" });
  try {
    return await new Promise<Record<string, number[]>>((resolve, reject) => {
      worker.onmessage = (e) => (e.data.ok ? resolve(e.data.timings) : reject(new Error(e.data.error)));
      worker.onerror = (e) => reject(new Error(e.message));
      const query = new URLSearchParams(location.search);
      const number = (k: string) => (query.has(k) ? { [k]: Number(query.get(k)) } : {});
      const only = query.get("only");
      worker.postMessage({
        ...number("commits"),
        ...number("variants"),
        ...number("rounds"),
        ...(only ? { only } : {}),
      });
    });
  } finally {
    worker.terminate();
  }
});
