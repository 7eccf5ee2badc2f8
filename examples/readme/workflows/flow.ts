// The Workflows section's flow module: steps named first (minifier-proof) and one workflow.
// #region readme
import { z } from "zod";
import * as ava from "../../../src/index.js";

export const Notes = ava.defineNamespace({
  name: "notes",
  tables: { totals: ava.table({ schema: z.object({ total: z.int(), by: z.string() }) }) },
});

export const inc = ava.step("inc", async (x: number) => x + 1); // the name is the node's slug
const add = ava.step("add", async (a: number, b: number) => a + b);
const save = ava.step(
  "save",
  async (total: number, { totals, ctx }: { totals: ava.Table; ctx: ava.RunContext }) => {
    await totals.append({ total, by: ctx.executor }); // rows carry the run, node and lineage
    return total;
  },
  { inject: { totals: Notes.tables.totals, ctx: ava.runContext() } }, // opened on the run's storage
);
export const flow = ava.workflow({ name: "math" }, () => {
  const a = inc(1); // a future; passing it on is an edge
  return save(add(a, inc(a))); // repeated calls get slugs inc_2, inc_3, …
});
// #endregion readme
