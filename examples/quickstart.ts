// `npm start`: the table API end to end on Node storage under ./.avalanche — create a namespace, append,
// scan with a filter, travel back in time — printing what it does. Run it again: it appends more.
import { z } from "zod";
import * as ava from "../src/node.js";

const Reading = z.object({
  sensor: z.string(),
  at: z.date(),
  celsius: z.number(),
  status: z.enum(["ok", "warn"]),
});

const Telemetry = ava.defineNamespace({
  name: "telemetry",
  tables: { readings: ava.table({ schema: Reading }) },
});

const root = process.env.AVALANCHE_ROOT ?? ".avalanche";
const ns = await Telemetry.open({ storage: ava.nodeStorage({ root }) });
await ns.push();
console.log(`storage: ${root} (namespace "${ns.name}", tables: ${(await ns.listTables()).join(", ")})`);

const now = Date.now();
const batch = (sensor: string, n: number) =>
  Array.from({ length: n }, (_, i) => {
    const celsius = 18 + Math.round(Math.sin(i / 3) * 80) / 10 + (sensor === "boiler" ? 40 : 0);
    return { sensor, at: new Date(now + i * 1000), celsius, status: celsius > 60 ? "warn" : "ok" } as const;
  });

const first = await ns.readings.append(batch("kitchen", 50));
console.log(
  `appended ${first.rowCount} rows -> snapshot ${first.snapshotId} (#${first.snapshot.sequenceNumber})`,
);
const second = await ns.readings.append(batch("boiler", 50));
console.log(
  `appended ${second.rowCount} rows -> snapshot ${second.snapshotId} (#${second.snapshot.sequenceNumber})`,
);

const hot = ns.readings.scan({ columns: ["sensor", "at", "celsius"], filter: (w) => w.gt("celsius", 60) });
const plan = await hot.plan();
const hotRows = await hot.toObjects();
console.log(
  `scan celsius > 60: ${hotRows.length} rows from ${plan.files.length} file(s), ${plan.prunedFiles.length} pruned by statistics`,
);

const history = await ns.readings.history();
console.log(`history: ${history.length} snapshots, ${history.at(-1)!.totalRows} rows now`);
const then = await ns.readings.read({ snapshotId: first.snapshotId });
console.log(`time travel to ${first.snapshotId}: ${then.numRows} rows then`);

const [model] = await ns.readings.readModels({ filter: (w) => w.eq("sensor", "boiler") });
console.log("a boiler reading, as a validated model:", model);
