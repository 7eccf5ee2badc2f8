// Idempotency keys on the warehouse storage: a batch sent again — by the same writer after a lost answer, or
// by another process racing it — lands once in the Postgres catalog, and the repeat is answered with the
// first commit's snapshot without writing a data file.
import * as A from "apache-arrow";
import { describe, expect, it } from "vitest";
import * as ava from "../../src/index.js";
import { useWarehouseServers } from "./fixtures/warehouse-servers.js";

const { fresh } = useWarehouseServers();

const Events = ava.defineNamespace({
  name: "ev",
  tables: {
    t: ava.table({ schema: new A.Schema([new A.Field("id", new A.Int32(), false)]), inline: false }),
  },
});

describe("idempotency keys on warehouseStorage", () => {
  it("a batch sent twice, and by two instances at once, commits once; a bad key is refused", async () => {
    const location = fresh();
    const [a, b] = [location.open(), location.open()]; // two processes' instances
    const nsA = await Events.open({ storage: a });
    await nsA.push();
    const nsB = await Events.open({ storage: b });
    const batch = [{ id: 1 }, { id: 2 }];
    const first = await nsA.t.append(batch, { idempotencyKey: "batch-1" });
    const again = await nsB.t.append(batch, { idempotencyKey: "batch-1" });
    expect(again.snapshotId).toBe(first.snapshotId);
    const raced = await Promise.all([
      nsA.t.append([{ id: 3 }], { idempotencyKey: "batch-2" }),
      nsB.t.append([{ id: 3 }], { idempotencyKey: "batch-2" }),
    ]);
    expect(raced[0].snapshotId).toBe(raced[1].snapshotId);
    const t = nsA.t as unknown as ava.Table;
    expect(await t.history()).toHaveLength(2);
    expect((await t.scan().toObjects()).map((r) => r.id).sort()).toEqual([1, 2, 3]);
    // Only the two commits' data files are in the bucket: a repeat writes none that stays referenced.
    expect((await t.scan().plan()).files).toHaveLength(2);
    await expect(nsA.t.append(batch, { idempotencyKey: "has space" })).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
      message: expect.stringContaining("idempotencyKey"),
    });
    expect(await t.history()).toHaveLength(2);
  });
});
