// The cursor pattern of the seeds: readings arrive; a rollup node sums the readings past its cursor and
// appends the sum with the cursor's new value in one commit, so each reading is counted once.
// `npx tsx examples/cursor-pattern.ts` (storage under ./.avalanche, or AVALANCHE_ROOT).
import { z } from "zod";
import * as ava from "../src/node.js";

const Sensors = ava.defineNamespace({
  name: "sensors",
  tables: {
    readings: ava.table({ schema: z.object({ ts: z.int(), value: z.number() }) }),
    rollups: ava.table({ schema: z.object({ through: z.int(), count: z.int(), total: z.number() }) }),
  },
});

const rollup = ava.step(
  async function rollup(inj: { readings: ava.Table; cursor: ava.Cursor }) {
    const since = Number((await inj.cursor.get()) ?? "-1");
    const rows = await inj.readings.scan({ filter: (w) => w.gt("ts", since) }).toObjects();
    if (rows.length === 0) return 0;
    const through = Math.max(...rows.map((r) => r.ts as number));
    await inj.cursor.transaction(async (tx) => {
      await tx.append([
        { through, count: rows.length, total: rows.reduce((a, r) => a + (r.value as number), 0) },
      ]);
      tx.set(String(through));
    });
    return rows.length;
  },
  {
    inject: {
      readings: Sensors.tables.readings,
      cursor: ava.cursor(Sensors.tables.rollups, { key: "rollup" }),
    },
  },
);

export const rollups = ava.workflow({ name: "rollups" }, () => rollup());

const storage = ava.nodeStorage({ root: process.env.AVALANCHE_ROOT ?? ".avalanche" });
const ns = await Sensors.open({ storage });
await ns.push();
const last = Number(
  (await new ava.Cursor(storage, Sensors.tables.rollups, "rollup", undefined).get()) ?? "-1",
);
for (let batch = 0; batch < 2; batch++) {
  const from = last + 1 + batch * 5;
  await ns.readings.append(Array.from({ length: 5 }, (_, i) => ({ ts: from + i, value: from + i })));
  const { value } = await rollups.run({ storage }).result();
  console.log(`rolled up ${value} readings`);
}
const { value } = await rollups.run({ storage }).result();
console.log(`rolled up ${value} readings (nothing new)`);
console.log(
  `rollups: ${JSON.stringify(await ns.rollups.scan({ columns: ["through", "count", "total"] }).toObjects())}`,
);
