// Cursors: a manual checkpoint that moves only together with the rows it accounts for.
import { describe, expect, it } from "vitest";
import * as ava from "../../src/index.js";
import { rollups, Sensors } from "./cursor-flows.js";
import { expectAvaError } from "./fixtures.js";

async function sensors() {
  const storage = ava.memoryStorage();
  const ns = await Sensors.open({ storage });
  await ns.push();
  const add = (from: number, n: number) =>
    ns.readings.append(Array.from({ length: n }, (_, i) => ({ ts: from + i, value: (from + i) * 2 })));
  return { storage, ns, add };
}

describe("ava.cursor", () => {
  it("rolls up each reading once across runs, the cursor moving with the rows", async () => {
    const { storage, ns, add } = await sensors();
    await add(0, 10);
    expect((await rollups.run({ storage }).result()).value).toBe(10);
    await add(10, 5);
    expect((await rollups.run({ storage }).result()).value).toBe(5);
    expect((await rollups.run({ storage }).result()).value).toBe(0);
    const rows = await ns.rollups.scan({ columns: ["through", "count", "total"] }).toObjects();
    expect(rows).toEqual([
      { through: 9, count: 10, total: 90 },
      { through: 14, count: 5, total: 120 },
    ]);
    const cursor = new ava.Cursor(storage, Sensors.tables.rollups, "readings_rollup", undefined);
    expect(await cursor.get()).toBe("14");
    expect(rows.length).toBe(2);
    expect((await ns.rollups.scan().toObjects())[0]!._ava_node_slug).toBe("rollup"); // rows carry the run
  });

  it("lands neither rows nor the new value when the transaction throws", async () => {
    const { storage, ns, add } = await sensors();
    await add(0, 4);
    await expectAvaError(
      rollups.run({ storage, input: { fail: true } }).result(),
      "RUN_FAILED",
      /inside the cursor/,
    );
    expect((await ns.rollups.read()).numRows).toBe(0);
    expect(
      await new ava.Cursor(storage, Sensors.tables.rollups, "readings_rollup", undefined).get(),
    ).toBeNull();
    expect(await storage.files.list("data/sensors/rollups")).toEqual([]);
    expect((await rollups.run({ storage }).result()).value).toBe(4); // the retry takes the same readings
  });

  it("refuses set() outside a transaction, and a writer that read an older value", async () => {
    const { storage, ns } = await sensors();
    const a = new ava.Cursor(storage, Sensors.tables.rollups, "k", undefined);
    const b = new ava.Cursor(storage, Sensors.tables.rollups, "k", undefined);
    await expectAvaError(() => a.set("1"), "INVALID_ARGUMENT", /only allowed inside cursor\.transaction/);
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    // a reads null and waits; b commits "2"; a's commit (expecting null) is refused, with its rows
    const slow = a.transaction(async (tx) => {
      await tx.append([{ through: 1, count: 1, total: 1 }]);
      tx.set("1");
      await gate;
    });
    await b.transaction(async (tx) => {
      await tx.append([{ through: 2, count: 1, total: 2 }]);
      tx.set("2");
    });
    release();
    await expectAvaError(slow, "COMMIT_CONFLICT", /cursor k of sensors\.rollups moved from null to "2"/);
    expect(await a.get()).toBe("2");
    expect((await ns.rollups.scan({ columns: ["through"] }).toObjects()).map((r) => r.through)).toEqual([2]);
    expect(() => ava.cursor(Sensors.tables.rollups, { key: "Bad" })).toThrow(/key matching/);
  });
});
