// Warehouse storage (issue 19): S3 data files (s3rver on 127.0.0.1) + a Postgres catalog (a throwaway
// cluster), against nodeStorage on the same rows:
// - append throughput: batches of 100,000 rows, each one data file + one commit;
// - scan throughput: reading the whole table back;
// - commit latency with 4 concurrent writers (independent storage instances, as 4 processes would be)
//   appending 10-row batches: median and p95 per commit, including the rebase after a lost race.
// Both servers run on this machine, so this measures the protocol's overhead (HTTP requests, SQL round
// trips), not a network: a real bucket adds its latency to each PUT/GET. Nor durability: the test cluster
// runs with fsync off and s3rver does not fsync, while nodeStorage fsyncs each file and entry — read a
// warehouse ratio below 1× as "the protocol costs little", not as "faster than a local disk". AVA_BENCH_WAREHOUSE_APPENDS sets
// the appends (default 10) and AVA_BENCH_WAREHOUSE_COMMITS the commits per writer (default 50).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ava from "../src/index.js";
import {
  closePostgresPools,
  nodeStorage,
  postgresCatalog,
  s3FileStore,
  warehouseStorage,
} from "../src/node.js";
import { startPostgres } from "../test/node/fixtures/postgres-server.js";
import { startS3 } from "../test/node/fixtures/s3-server.js";
import { BATCH, makeBatch, schema } from "./data.js";
import { median, percentile, printTable, rate, ratio } from "./lib.js";

const APPENDS = Number(process.env.AVA_BENCH_WAREHOUSE_APPENDS ?? 10);
const COMMITS = Number(process.env.AVA_BENCH_WAREHOUSE_COMMITS ?? 50);
const WRITERS = 4;

const Bench = ava.defineNamespace({ name: "bench", tables: { points: ava.table({ schema }) } });

interface Measured {
  appendMs: number[];
  scanMs: number[];
  commitMs: number[];
}

async function measure(open: () => ava.Storage): Promise<Measured> {
  const ns = await Bench.open({ storage: open() });
  await ns.push();
  const batches = Array.from({ length: APPENDS }, (_, b) => makeBatch(b));
  const appendMs: number[] = [];
  for (const batch of batches) {
    const t0 = performance.now();
    await ns.points.append(batch);
    appendMs.push(performance.now() - t0);
  }
  const scanMs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const reader = await Bench.open({ storage: open() }); // a fresh instance: nothing cached
    const t0 = performance.now();
    const table = await reader.points.read();
    scanMs.push(performance.now() - t0);
    if (table.numRows !== APPENDS * BATCH) throw new Error(`scan read ${table.numRows} rows`);
  }

  const writers = await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      const w = await Bench.open({ storage: open() });
      await w.points.history(); // opened and caught up, as a running service
      return w;
    }),
  );
  const small = makeBatch(0, 10);
  const commitMs: number[] = [];
  await Promise.all(
    writers.map(async (w) => {
      for (let i = 0; i < COMMITS; i++) {
        const t0 = performance.now();
        await w.points.append(small);
        commitMs.push(performance.now() - t0);
      }
    }),
  );
  // Small appends are inlined, and their flush into a data file is a snapshot too: appends are counted.
  const history = await (await Bench.open({ storage: open() })).points.history();
  const appends = history.filter((s) => s.operation === "append").length;
  if (appends !== APPENDS + WRITERS * COMMITS) throw new Error(`${appends} appends`);
  return { appendMs, scanMs, commitMs };
}

export async function benchWarehouse(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const [pg, s3] = await Promise.all([startPostgres(), startS3()]);
  const root = await mkdtemp(join(tmpdir(), "ava-bench-warehouse-"));
  try {
    const node = await measure(() => nodeStorage({ root }));
    const warehouse = await measure(() =>
      warehouseStorage({
        files: s3FileStore({ bucket: s3.bucket, prefix: "bench/", client: s3.client }),
        catalog: postgresCatalog({ connectionString: pg.url(), schema: "bench" }),
      }),
    );
    const rows = APPENDS * BATCH;
    const perAppend = (m: Measured) => median(m.appendMs);
    const perScan = (m: Measured) => median(m.scanMs);
    printTable(
      `warehouse: ${APPENDS} appends of ${BATCH} rows, then a full scan (s3rver + Postgres on 127.0.0.1)`,
      [
        {
          case: "append, nodeStorage (fsync on)",
          median_ms: perAppend(node),
          rate: rate(BATCH, perAppend(node), "rows"),
        },
        {
          case: "append, warehouseStorage",
          median_ms: perAppend(warehouse),
          rate: rate(BATCH, perAppend(warehouse), "rows"),
          ratio: ratio(perAppend(warehouse), perAppend(node)),
          note: "time ratio vs nodeStorage",
        },
        { case: "scan, nodeStorage", median_ms: perScan(node), rate: rate(rows, perScan(node), "rows") },
        {
          case: "scan, warehouseStorage",
          median_ms: perScan(warehouse),
          rate: rate(rows, perScan(warehouse), "rows"),
          ratio: ratio(perScan(warehouse), perScan(node)),
          note: "time ratio vs nodeStorage",
        },
      ],
    );
    const latency = (name: string, m: Measured, base?: Measured) => [
      {
        case: `commit median, ${name}`,
        median_ms: median(m.commitMs),
        ...(base ? { ratio: ratio(median(m.commitMs), median(base.commitMs)) } : {}),
      },
      {
        case: `commit p95, ${name}`,
        median_ms: percentile(m.commitMs, 95),
        ...(base ? { ratio: ratio(percentile(m.commitMs, 95), percentile(base.commitMs, 95)) } : {}),
      },
    ];
    printTable(`warehouse: commit latency, ${WRITERS} concurrent writers × ${COMMITS} appends of 10 rows`, [
      ...latency("nodeStorage", node),
      ...latency("warehouseStorage", warehouse, node),
    ]);
  } finally {
    await closePostgresPools();
    // nodeStorage may still be writing a checkpoint in the background: retry what that makes ENOTEMPTY, so a
    // failure of the run itself is not hidden behind one of the clean-up.
    await Promise.all([pg.close(), s3.close(), rm(root, { recursive: true, force: true, maxRetries: 10 })]);
  }
}
