// The app's workflow, imported by main (to run it) and by the worker-thread entry (to serve it).
import { isMainThread, threadId } from "node:worker_threads";
import * as ava from "avalanche-web/node";
import { z } from "zod";

export const App = ava.defineNamespace({
  name: "app",
  tables: { runs: ava.table({ schema: z.object({ thread: z.number(), doubled: z.number() }) }) },
});

const double = ava.step("double", async (x: number) => ({ isMainThread, threadId, doubled: x * 2 }));
const save = ava.step(
  "save",
  async (where: { threadId: number; doubled: number }, { runs }) => {
    await runs.append([{ thread: where.threadId, doubled: where.doubled }]);
    return where;
  },
  { inject: { runs: App.tables.runs } },
);
export const dashboardFlow = ava.workflow({ name: "dashboard" }, () => save(double(21)));
