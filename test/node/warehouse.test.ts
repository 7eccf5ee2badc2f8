// The warehouse storage (S3 data files + Postgres catalog) against every shared storage contract, on real
// servers: s3rver on 127.0.0.1 and a throwaway Postgres cluster, both started here.
import { open } from "../../src/sql-node.js";
import { describeMaintenance } from "../shared/maintenance-contract.js";
import { describeSchemaEvolution } from "../shared/schema-evolution-contract.js";
import { describeSql } from "../shared/sql-contract.js";
import { describeStorage } from "../shared/storage-contract.js";
import { describeSubscriptions } from "../shared/subscribe-contract.js";
import { useWarehouseServers } from "./fixtures/warehouse-servers.js";

const { fresh } = useWarehouseServers();

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
