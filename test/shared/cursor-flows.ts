// The cursor pattern of the seeds: readings arrive; a rollup node sums those past its cursor and appends
// the sum together with the cursor's new value, in one commit.
import { z } from "zod";
import * as ava from "../../src/index.js";

export const Sensors = ava.defineNamespace({
  name: "sensors",
  tables: {
    readings: ava.table({ schema: z.object({ ts: z.int(), value: z.number() }) }),
    rollups: ava.table({ schema: z.object({ through: z.int(), count: z.int(), total: z.number() }) }),
  },
});

const rollup = ava.step(
  async function rollup(inj: {
    readings: ava.Table;
    cursor: ava.Cursor;
    input: { fail?: boolean } | undefined;
  }) {
    const since = Number((await inj.cursor.get()) ?? "-1");
    const rows = await inj.readings.scan({ filter: (w) => w.gt("ts", since) }).toObjects();
    if (rows.length === 0) return 0;
    const through = Math.max(...rows.map((r) => r.ts as number));
    const total = rows.reduce((a, r) => a + (r.value as number), 0);
    await inj.cursor.transaction(async (tx) => {
      await tx.append([{ through, count: rows.length, total }]);
      if (inj.input?.fail) throw new Error("failed inside the cursor transaction");
      tx.set(String(through));
    });
    return rows.length;
  },
  {
    inject: {
      readings: Sensors.tables.readings,
      cursor: ava.cursor(Sensors.tables.rollups, { key: "readings_rollup" }),
      input: ava.runInput(),
    },
  },
);
export const rollups = ava.workflow({ name: "rollups" }, () => rollup());
