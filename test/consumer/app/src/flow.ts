// The app's workflows, imported by the page (to run them) and by the worker entry (to serve them).
import * as ava from "avalanche-web";
import { z } from "zod";

export const App = ava.defineNamespace({
  name: "app",
  tables: {
    readings: ava.table({ schema: z.object({ sensor: z.string(), celsius: z.number() }) }),
    points: ava.table({ schema: ava.avro.avroStreamArrowSchema }),
    runs: ava.table({ schema: z.object({ scope: z.string(), doubled: z.number() }) }),
  },
});

/** Where the step ran: the worker's global scope, by its constructor's name and its type. */
function scope(): { scope: string; inWorker: boolean } {
  const worker = (globalThis as { WorkerGlobalScope?: abstract new () => unknown }).WorkerGlobalScope;
  return {
    scope: globalThis.constructor.name,
    inWorker: typeof worker === "function" && globalThis instanceof worker,
  };
}

// The documented way: a name first, which a minifier cannot strip.
const double = ava.step("double", async (x: number) => ({ ...scope(), doubled: x * 2 }));
const save = ava.step(
  "save",
  async (where: { scope: string; doubled: number }, { runs }) => {
    const res = await runs.append([{ scope: where.scope, doubled: where.doubled }]);
    return { ...where, appended: res.toObjects().length };
  },
  { inject: { runs: App.tables.runs } },
);
export const dashboardFlow = ava.workflow({ name: "dashboard" }, () => save(double(21)));

// The older way, a named function expression: production minifiers strip its name.
const generate = ava.step(async function generate() {
  return 1;
});
export const legacyFlow = ava.workflow({ name: "legacy" }, () => generate());
