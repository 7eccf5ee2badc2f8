// The README's "SQL" example, verbatim between the region markers (test/node/readme.test.ts compares and
// runs it, in a fresh folder): the namespace of the "Tables" example, with a few readings, comes first.
import * as ava from "../../src/node.js";
import { z } from "zod";

const Telemetry = ava.defineNamespace({
  name: "telemetry",
  tables: {
    readings: ava.table({
      schema: z.object({
        sensor: z.string(),
        at: z.date(),
        celsius: z.number(),
        status: z.enum(["ok", "warn"]),
      }),
    }),
  },
});
const ns = await Telemetry.open({ storage: ava.nodeStorage({ root: ".avalanche" }) });
await ns.push();
const at = new Date("2026-01-01T00:00:00Z");
const { snapshotId: oldSnapshotId } = await ns.readings.append([
  { sensor: "boiler", at, celsius: 61.5, status: "warn" },
  { sensor: "kitchen", at, celsius: 19, status: "ok" },
]);
await ns.readings.append([{ sensor: "boiler", at, celsius: 63.5, status: "warn" }]);

// #region readme
import { open } from "../../src/sql-node.js"; // Node: native DuckDB; browser: duckdb-wasm in a Worker

const db = await open(ns);
const bySensor = await db.query("SELECT sensor, avg(celsius) AS avg FROM readings GROUP BY sensor"); // Arrow
const hot = await db.query("SELECT * FROM readings WHERE celsius > ?", [60]);
const past = db.at({ readings: oldSnapshotId }); // time travel: that table at an older snapshot
const before = await past.query("SELECT count(*) AS n FROM readings");
await db.close();
// #endregion readme

import assert from "node:assert/strict";

assert.deepEqual(
  bySensor
    .toArray()
    .map((r) => [r.sensor, r.avg])
    .sort(),
  [
    ["boiler", 62.5],
    ["kitchen", 19],
  ],
);
assert.equal(hot.numRows, 2);
assert.equal(
  hot.schema.fields.some((f) => f.name === "_ava_updated_at"),
  true,
); // provenance is queryable
assert.equal(Number(before.get(0)?.n), 2);
console.log("sql: ok");
