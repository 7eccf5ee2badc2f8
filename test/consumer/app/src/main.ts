// A page that uses the packed library as an app would, with no bundler configuration, and reports JSON.
import * as A from "apache-arrow";
import * as ava from "avalanche-web";
import { open } from "avalanche-web/sql";
import { App, dashboardFlow, legacyFlow } from "./flow";

const out = document.getElementById("out")!;

async function main(): Promise<unknown> {
  const name = new URLSearchParams(location.search).get("storage") ?? "consumer";
  const storage = ava.browserStorage({ name, persist: false });
  const ns = await App.open({ storage });
  await ns.push();
  const before = (await ns.readings.read()).numRows;
  await ns.readings.append([
    { sensor: "boiler", celsius: 61.5 },
    { sensor: "oven", celsius: 180 },
  ]);
  const after = (await ns.readings.read()).numRows;

  const db = await open(ns);
  const result = await db.query("SELECT count(*)::INTEGER AS n, sum(celsius) AS total FROM readings");
  const sql = result.toArray()[0];
  // The app's own Arrow: no second copy (duckdb-wasm's) reaches it, with no override in package.json.
  const sqlIsAppArrow = result instanceof A.Table;
  await db.close();

  const sink = ava.avro.memorySink();
  const writer = ava.avro.createWriter(sink, { codec: "snappy" });
  writer.enqueueBatch("altitude", [1_000_000_000n, 2_000_000_000n, 3_000_000_000n], [10, 20, 30]);
  await writer.close();
  const file = await ava.avro.openAvroStream(sink.bytes());
  let records = 0;
  for await (const _ of file.records()) records++;
  const ingest = await ns.points.appendAvroStream(sink.bytes(), { timestampType: "ns" });

  const bigFile = await writeBigFile(storage);

  const executor = ava.workerExecutor({
    worker: () => new Worker(new URL("./flow.worker.ts", import.meta.url), { type: "module" }),
    size: 1,
  });
  let workflow: unknown;
  try {
    workflow = (await dashboardFlow.run({ storage, executor }).result()).value;
  } finally {
    await executor.close();
  }
  let legacy: unknown;
  try {
    legacy = { ran: (await legacyFlow.run().result()).value };
  } catch (err) {
    legacy = { code: (err as ava.AvaError).code, message: (err as Error).message };
  }
  return {
    before,
    after,
    sql: { n: Number(sql.n), total: Number(sql.total), sqlIsAppArrow },
    avro: { records, ingested: (await ns.points.read()).numRows, snapshot: typeof ingest.snapshotId },
    workflow,
    workflowRows: (await ns.runs.read()).numRows,
    legacy,
    bigFile,
  };
}

/**
 * A big file written from the page's main thread goes through the library's own OPFS writer Worker, which
 * it starts from a Blob URL: counted here by watching the Worker constructor, with no bundler setup.
 */
async function writeBigFile(storage: ava.Storage) {
  let blobWorkers = 0;
  let workerErrors = 0;
  const Real = globalThis.Worker;
  globalThis.Worker = class extends Real {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options);
      if (String(url).startsWith("blob:")) {
        blobWorkers++;
        this.addEventListener("error", () => workerErrors++);
      }
    }
  };
  try {
    const bytes = new Uint8Array(200_000).map((_, i) => i & 255);
    const path = `big/${Date.now()}-${Math.random().toString(36).slice(2)}.bin`;
    await storage.files.write(path, bytes);
    const back = await storage.files.read(path);
    return { bytes: back.length, same: back.every((b, i) => b === bytes[i]), blobWorkers, workerErrors };
  } finally {
    globalThis.Worker = Real;
  }
}

main().then(
  (result) => {
    out.textContent = `OK ${JSON.stringify(result)}`;
  },
  (err) => {
    out.textContent = `FAIL ${err?.stack ?? err}`;
  },
);
