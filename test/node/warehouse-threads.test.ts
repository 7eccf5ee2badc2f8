// Workflows in worker threads on the warehouse storage: each thread reopens it from its plain-data
// descriptor (bucket, prefix, client settings, connection string, schema) with connections of its own.
import { workerExecutor } from "../../src/node.js";
import { describeExecutor } from "../shared/workflow-executors.js";
import { useWarehouseServers } from "./fixtures/warehouse-servers.js";

const { fresh } = useWarehouseServers();

describeExecutor("worker threads on warehouseStorage", {
  executor: (size) =>
    workerExecutor({ worker: new URL("./fixtures/flows.worker.ts", import.meta.url), size }),
  narrowExecutor: () =>
    workerExecutor({ worker: new URL("./fixtures/math-only.worker.ts", import.meta.url), size: 1 }),
  create: (options) => workerExecutor(options as Parameters<typeof workerExecutor>[0]),
  storage: () => fresh().open(),
});
