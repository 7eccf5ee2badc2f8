// The warehouse storage (S3 data files + Postgres catalog) against every shared contract, on real servers:
// s3rver on 127.0.0.1 and a throwaway Postgres cluster, both started here. Each `fresh()` location is a
// key prefix of its own in the bucket and a Postgres schema of its own.
import { afterAll, beforeAll } from "vitest";
import {
  closePostgresPools,
  postgresCatalog,
  s3FileStore,
  type Storage,
  warehouseStorage,
} from "../../src/node.js";
import { open } from "../../src/sql-node.js";
import { describeMaintenance } from "../shared/maintenance-contract.js";
import { describeSchemaEvolution } from "../shared/schema-evolution-contract.js";
import { describeSql } from "../shared/sql-contract.js";
import { describeStorage } from "../shared/storage-contract.js";
import { describeSubscriptions } from "../shared/subscribe-contract.js";
import { type PostgresServer, startPostgres } from "./fixtures/postgres-server.js";
import { type S3Server, startS3 } from "./fixtures/s3-server.js";

let pg: PostgresServer;
let s3: S3Server;
beforeAll(async () => {
  [pg, s3] = await Promise.all([startPostgres(), startS3()]);
});
afterAll(async () => {
  await closePostgresPools();
  await Promise.all([pg?.close(), s3?.close()]);
});

let counter = 0;
/** A new empty location; each `open()` on it is an independent instance, as another process would have. */
function fresh() {
  const name = `t${++counter}_${Math.random().toString(36).slice(2, 8)}`;
  return {
    open: (options: { now?: () => number } = {}): Storage =>
      warehouseStorage({
        files: s3FileStore({ bucket: s3.bucket, prefix: name, client: s3.client }),
        catalog: postgresCatalog({ connectionString: pg.url(), schema: name, pollMs: 200, ...options }),
        ...options,
      }),
  };
}

describeStorage("warehouseStorage", { fresh: async () => fresh() });
describeSubscriptions("warehouseStorage", { fresh: async () => fresh() });
describeSchemaEvolution("warehouseStorage", { fresh: async () => fresh() });
describeMaintenance("warehouseStorage", {
  fresh: async () => fresh(),
  // Each small append is a PUT and an INSERT over the loopback: fewer than nodeStorage's 600 keep the file fast.
  soakAppends: Number(process.env.AVA_SOAK_APPENDS ?? 200),
});
describeSql("native DuckDB on warehouseStorage", {
  open: (ns) => open(ns, { threads: 2 }),
  storage: () => fresh().open(),
});
