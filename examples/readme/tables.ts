// biome-ignore-all format: the README shows this layout (aligned comments), verbatim
// The README's "Tables" example, verbatim between the region markers (test/node/readme.test.ts compares
// and runs it, in a fresh folder); the checks after it say what the README promises.
// #region readme
import * as ava from "../../src/node.js"; // in a browser or Worker: "avalanche-web"
import { z } from "zod";

const Reading = z.object({
  sensor: z.string(),
  at: z.date(),                    // Timestamp(µs, UTC)
  celsius: z.number(),             // Float64; z.int() is Int64 read back as a number, z.bigint() as a bigint
  status: z.enum(["ok", "warn"]),  // Dictionary<Utf8>
  extra: ava.json().optional(),    // any JSON value, stored as JSON text
});

const Telemetry = ava.defineNamespace({
  name: "telemetry",
  tables: { readings: ava.table({ schema: Reading }) }, // or an Arrow Schema; rowLineage: false drops _ava_*
});

const ns = await Telemetry.open({ storage: ava.nodeStorage({ root: ".avalanche" }) });
await ns.push(); // creates what is missing; idempotent

const res = await ns.readings.append([
  { sensor: "boiler", at: new Date(), celsius: 61.5, status: "warn" },
]); // also an Arrow Table or RecordBatch, or a single object
res.snapshotId; res.one(); res.toArrow(); res.toObjects(); res.toModels();

const hot = ns.readings.scan({
  columns: ["sensor", "celsius"],
  filter: (w) => w.and(w.gt("celsius", 60), w.in("sensor", ["boiler", "oven"])),
});
await hot.plan();      // which data files may match; the others are never read
await hot.toArrow();   // or toObjects(), or `for await (const batch of hot.batches())`

await ns.readings.read();                                  // current snapshot, as an Arrow Table
await ns.readings.readModels();                            // zod-validated objects
await ns.readings.history();                               // snapshots, oldest first
await ns.readings.read({ snapshotId: res.snapshotId });    // time travel
await ns.readings.overwrite([                              // one snapshot that replaces every row
  { sensor: "oven", at: new Date(), celsius: 180, status: "warn", extra: { door: "closed" } },
]);
await ns.readings.scan({ filter: (w) => w.isNull("_ava_run_id") }).toObjects(); // provenance filters too
await ns.vacuum({ olderThanMs: 0 });                       // remove files no commit references
// #endregion readme

import assert from "node:assert/strict";

// A scan reads the snapshot current when it runs: after the overwrite, only the oven's row.
assert.deepEqual(await hot.toObjects(), [{ sensor: "oven", celsius: 180 }]);
assert.equal((await hot.plan()).files.length, 1);
assert.deepEqual(
  (await ns.readings.scan({ filter: (w) => w.gt("celsius", 60), snapshotId: res.snapshotId }).toObjects()).map(
    (r) => r.sensor,
  ),
  ["boiler"],
);
assert.deepEqual(
  (await ns.readings.readModels()).map((r) => [r.sensor, r.extra]),
  [["oven", { door: "closed" }]],
);
assert.deepEqual(
  (await ns.readings.history()).map((s) => s.operation),
  ["append", "overwrite"],
);
assert.equal((await ns.readings.read({ snapshotId: res.snapshotId })).numRows, 1);
assert.equal(res.one().sensor, "boiler");
console.log("tables: ok");
