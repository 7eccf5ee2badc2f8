// The maintenance contract on the warehouse storage (S3 data files + Postgres catalog), on real servers:
// compaction, expiry, deferred deletion, catalog cleanup (rows of <schema>.log removed under a checkpoint),
// inlined appends and the soak under auto maintenance.
import pg from "pg";
import type { Storage } from "../../src/node.js";
import { describeMaintenance } from "../shared/maintenance-contract.js";
import { useWarehouseServers } from "./fixtures/warehouse-servers.js";

const servers = useWarehouseServers();
const { fresh } = servers;

/** The bytes of the log entries and checkpoints the catalog holds (live rows: what cleanup must bound). */
async function catalogBytes(storage: Storage): Promise<number> {
  if (storage.descriptor.kind !== "warehouse") throw new Error("not a warehouse storage");
  const schema = `"${storage.descriptor.postgres.schema}"`;
  const client = new pg.Client(servers.pg().url());
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT (SELECT coalesce(sum(octet_length(entry)), 0) FROM ${schema}.log)
            + (SELECT coalesce(sum(octet_length(state)), 0) FROM ${schema}.checkpoints) AS bytes`,
    );
    return Number(rows[0].bytes);
  } finally {
    await client.end();
  }
}

describeMaintenance("warehouseStorage", {
  fresh: async () => fresh(),
  catalogBytes,
  // Each small append is a PUT and an INSERT over the loopback: fewer than nodeStorage's 600 keep the file fast.
  soakAppends: Number(process.env.AVA_SOAK_APPENDS ?? 200),
});
