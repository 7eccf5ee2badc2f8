// The CPU of each step of a small (10-row) inlined append, each step timed alone over many repetitions
// on the same rows — what `node --cpu-prof` splits less cleanly under load. AVA_STAGE_REPS sets the
// repetitions (default 20,000). Run: npx tsx bench/commit-stages.ts
import * as ava from "../src/index.js";
import { coerceInput } from "../src/schema/coerce.js";
import { withProvenance } from "../src/schema/provenance.js";
import { applyOps, type CatalogOp } from "../src/storage/catalog/state.js";
import { columnStats } from "../src/table/stats.js";
import { inlinePayload } from "../src/table/inline-data.js";
import { memoryStorage } from "../src/index.js";
import { nowMicros, ulid } from "../src/util/ids.js";
import { makeBatch, schema } from "./data.js";

const REPS = Number(process.env.AVA_STAGE_REPS ?? 20_000);
const Def = ava.defineNamespace({
  name: "bench",
  tables: { points: ava.table({ schema, inline: { flush: false } }) },
});
const storage = memoryStorage();
const ns = await Def.open({ storage });
await ns.push();
const decl = ns.points.declaration;
const rows = makeBatch(0, 10);

/** The fastest of AVA_STAGE_ROUNDS rounds (default 5): load on a shared machine only ever adds time. */
const ROUNDS = Number(process.env.AVA_STAGE_ROUNDS ?? 5);
function time(name: string, f: () => unknown): void {
  for (let i = 0; i < Math.min(2000, REPS); i++) f();
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < ROUNDS; round++) {
    const t = performance.now();
    for (let i = 0; i < REPS; i++) f();
    best = Math.min(best, ((performance.now() - t) / REPS) * 1000);
  }
  console.log(`${name.padEnd(28)} ${best.toFixed(1).padStart(7)} µs`);
}

const { user, stored, zod } = decl.schema;
const coerced = coerceInput(rows, { identifier: decl.identifier, schema: user, zod });
const full = withProvenance(coerced, stored, undefined, nowMicros());
const payload = inlinePayload(full);
const stats = columnStats(full);
time("coerceInput", () => coerceInput(rows, { identifier: decl.identifier, schema: user, zod }));
time("withProvenance", () => withProvenance(coerced, stored, undefined, nowMicros()));
time("columnStats", () => columnStats(full));
time("inlinePayload", () => inlinePayload(full));
time("ulid", () => ulid(Date.now()));
const op = (): CatalogOp => ({
  op: "commitSnapshot",
  namespace: "bench",
  table: "points",
  snapshot: {
    id: ulid(Date.now()),
    operation: "append",
    timestampMs: Date.now(),
    addedFiles: [
      {
        path: "data/bench/points/x.inline",
        rowCount: 10,
        sizeBytes: payload.sizeBytes,
        stats,
        inline: payload.inline,
        inlineCrc: payload.inlineCrc,
      },
    ],
  },
});
time("JSON.stringify entry", () => JSON.stringify({ ops: [op()] }));
let state = await storage.catalog.current();
time("applyOps (growing state)", () => {
  state = applyOps(state, [op()]).state;
});
time("append (memory storage)", () => {});
const t = performance.now();
const N = Math.min(REPS, 5000);
for (let i = 0; i < N; i++) await ns.points.append(rows);
console.log(
  `${"append() memory, whole".padEnd(28)} ${(((performance.now() - t) / N) * 1000).toFixed(1).padStart(7)} µs`,
);
