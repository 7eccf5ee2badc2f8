// The maintenance contract on the warehouse storage (S3 data files + Postgres catalog), on real servers:
// compaction, expiry, deferred deletion, catalog cleanup (rows of <schema>.log removed under a checkpoint),
// inlined appends and the soak under auto maintenance.
import { describeMaintenance } from "../shared/maintenance-contract.js";
import { useWarehouseServers } from "./fixtures/warehouse-servers.js";

const { fresh } = useWarehouseServers();

describeMaintenance("warehouseStorage", {
  fresh: async () => fresh(),
  // Each small append is a PUT and an INSERT over the loopback: fewer than nodeStorage's 600 keep the file fast.
  soakAppends: Number(process.env.AVA_SOAK_APPENDS ?? 200),
});
