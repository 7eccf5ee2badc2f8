// The README's "Warehouse storage: S3 + Postgres" example, verbatim between the region markers
// (test/node/readme.test.ts compares and runs it, in a fresh folder). It needs an S3 server and a Postgres
// server: before the region this file starts throwaway ones (s3rver and a temporary cluster, as the
// warehouse tests do) and points the environment at them; the checks after it say what the README promises.
import assert from "node:assert/strict";
import { startPostgres } from "../../test/node/fixtures/postgres-server.js";
import { startS3 } from "../../test/node/fixtures/s3-server.js";

const [pg, s3] = await Promise.all([startPostgres(), startS3("telemetry")]);
process.env.DATABASE_URL = pg.url();
process.env.S3_ENDPOINT = s3.endpoint;
process.env.AWS_ACCESS_KEY_ID = "S3RVER"; // s3rver's key pair, read by the SDK's default credential chain
process.env.AWS_SECRET_ACCESS_KEY = "S3RVER";
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";

// #region readme
import * as ava from "../../src/node.js"; // npm install pg @aws-sdk/client-s3 (optional peer dependencies)
import { z } from "zod";

const storage = ava.warehouseStorage({
  // any S3-compatible service (AWS S3, MinIO, R2, …); plain settings let worker threads reopen it
  files: ava.s3FileStore({
    bucket: "telemetry",
    prefix: "warehouse/",
    client: { endpoint: process.env.S3_ENDPOINT ?? "http://127.0.0.1:9000" }, // or your own S3Client
  }),
  // the catalog's tables live in this schema, created on first use; commits are single transactions
  catalog: ava.postgresCatalog({ connectionString: process.env.DATABASE_URL!, schema: "avalanche" }),
});

const Fleet = ava.defineNamespace({
  name: "fleet",
  tables: {
    positions: ava.table({ schema: z.object({ vehicle: z.string(), lat: z.number(), lon: z.number() }) }),
  },
});
const ns = await Fleet.open({ storage }); // from any number of processes on any number of machines
await ns.push();
await ns.positions.append([{ vehicle: "sn-001", lat: 52.52, lon: 13.4 }]);
// #endregion readme

// Another instance (as another machine would open it) sees the row. A one-row append is inlined into the
// catalog (no file yet); maintenance flushes it into a Parquet file in the bucket.
const other = await Fleet.open({
  storage: ava.warehouseStorage({
    files: ava.s3FileStore({ bucket: "telemetry", prefix: "warehouse/", client: { endpoint: s3.endpoint } }),
    catalog: ava.postgresCatalog({ connectionString: pg.url(), schema: "avalanche" }),
  }),
});
assert.deepEqual(
  (await other.positions.read()).toArray().map((r) => r.vehicle),
  ["sn-001"],
);
assert.equal((await storage.files.list("data/")).length, 0);
await ns.maintain({ flush: { maxAgeMs: 0 } });
assert.deepEqual(
  (await other.positions.read()).toArray().map((r) => r.vehicle),
  ["sn-001"],
);
const files = await storage.files.list("data/");
assert.equal(files.length, 1);
assert.equal(new TextDecoder().decode(await storage.files.readRange(files[0]!.path, 0, 4)), "PAR1");
await ava.closePostgresPools();
await Promise.all([pg.close(), s3.close()]);
console.log("warehouse: ok");
