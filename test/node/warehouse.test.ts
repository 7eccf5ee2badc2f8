// The warehouse storage (S3 data files + Postgres catalog) against the shared storage contracts, on real
// servers: s3rver on 127.0.0.1 and a throwaway Postgres cluster, both started here. The maintenance
// contract runs in warehouse-maintenance.test.ts, workflows in worker threads in warehouse-threads.test.ts.
import { open } from "../../src/sql-node.js";
import { describeSchemaEvolution } from "../shared/schema-evolution-contract.js";
import { describeSql } from "../shared/sql-contract.js";
import { describeStorage } from "../shared/storage-contract.js";
import { describeSubscriptions } from "../shared/subscribe-contract.js";
import { useWarehouseServers } from "./fixtures/warehouse-servers.js";

const { fresh } = useWarehouseServers();

describeStorage("warehouseStorage", { fresh: async () => fresh() });
describeSubscriptions("warehouseStorage", { fresh: async () => fresh() });
describeSchemaEvolution("warehouseStorage", { fresh: async () => fresh() });
describeSql("native DuckDB on warehouseStorage", {
  open: (ns) => open(ns, { threads: 2 }),
  storage: () => fresh().open(),
});
