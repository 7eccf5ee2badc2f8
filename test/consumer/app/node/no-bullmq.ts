// BullMQ is an optional peer dependency, and this app does not install it: bullmqExecutor and serveBullmq
// must then say what to install. Prints what each reported, as JSON.
import * as ava from "avalanche-web/node";
import { dashboardFlow } from "./flow.js";

const reported = (err: unknown) => ({
  name: (err as Error).name,
  code: (err as ava.AvaError).code,
  message: (err as Error).message,
});

// No Redis is needed: the executor imports BullMQ before it connects.
const executor = ava.bullmqExecutor({ connection: "redis://127.0.0.1:1", queue: "q" });
let run: unknown;
try {
  await dashboardFlow.run({ executor }).result();
  run = { ran: true };
} catch (err) {
  const failed = Object.values((err as ava.RunError).result.nodes).find((n) => n.status === "failed");
  run = { ...reported(err), node: failed?.error };
} finally {
  await executor.close();
}

const worker = ava.serveBullmq({ connection: "redis://127.0.0.1:1", queue: "q", workflows: [dashboardFlow] });
const serve = await worker.ready.then(() => ({ ready: true }), reported);
await worker.close();

console.log(JSON.stringify({ run, serve }));
