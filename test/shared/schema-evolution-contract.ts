// Schema evolution through push(), run against every storage (memory, Node, browser): data written under
// each older schema version reads under the newest one — in scans with filters and pruning, time travel
// and append_scan streams — and incompatible changes are refused before anything is written.
import * as A from "apache-arrow";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as ava from "../../src/index.js";
import { deserializeState, serializeState } from "../../src/storage/catalog/checkpoint.js";
import { expectAvaError } from "./fixtures.js";
import type { StorageTarget } from "./storage-contract.js";

// Three versions of one model table: v1 adds an optional column, a new enum value and widens int -> bigint;
// v2 renames id -> item_id and drops legacy.
const V0 = z.object({
  id: z.string(),
  qty: z.int(),
  status: z.enum(["new", "done"]),
  legacy: z.string(),
});
const V1 = z.object({
  id: z.string(),
  qty: z.bigint(),
  status: z.enum(["new", "done", "archived"]),
  legacy: z.string(),
  note: z.string().optional(),
});
const V2 = z.object({
  item_id: z.string(),
  qty: z.bigint(),
  status: z.enum(["new", "done", "archived"]),
  note: z.string().optional(),
});

// The same for a dataframe table: int32 -> int64, float32 -> float64, a nullable column added.
const m0 = new A.Schema([new A.Field("k", new A.Int32(), false), new A.Field("v", new A.Float32(), true)]);
const m1 = new A.Schema([
  new A.Field("k", new A.Int64(), false),
  new A.Field("v", new A.Float64(), true),
  new A.Field("unit", new A.Utf8(), true),
]);

const shop = (items: z.ZodObject, metrics: A.Schema, options: Partial<ava.TableOptions<z.ZodObject>> = {}) =>
  ava.defineNamespace({
    name: "shop",
    tables: {
      items: ava.table({ schema: items, ...options }),
      metrics: ava.table({ schema: metrics }),
    },
  });
const Shop0 = shop(V0, m0);
const Shop1 = shop(V1, m1);
const Shop2 = shop(V2, m1, { renames: { item_id: "id" }, drops: ["legacy"] });

/** A storage with rows written under each of the three versions (two files per version). */
async function evolved(target: StorageTarget) {
  const location = await target.fresh();
  const storage = location.open();
  const ns0 = await Shop0.open({ storage });
  await ns0.push();
  await ns0.items.append([
    { id: "a0", qty: 1, status: "new", legacy: "x" },
    { id: "a1", qty: 2, status: "done", legacy: "y" },
  ]);
  await ns0.items.append([{ id: "a2", qty: 3, status: "new", legacy: "z" }]);
  await ns0.metrics.append(A.tableFromArrays({ k: Int32Array.of(1, 2), v: Float32Array.of(0.5, 1.5) }));
  const ns1 = await Shop1.open({ storage });
  await ns1.push();
  await ns1.items.append([{ id: "b0", qty: 2n ** 40n, status: "archived", legacy: "w", note: "hello" }]);
  await ns1.metrics.append(
    A.tableFromArrays({ k: BigInt64Array.of(2n ** 40n), v: Float64Array.of(0.1), unit: ["m"] }),
  );
  const ns2 = await Shop2.open({ storage });
  await ns2.push();
  await ns2.items.append([{ item_id: "c0", qty: 7n, status: "done", note: "late" }]);
  return { location, storage, ns0, ns1, ns2 };
}

const byItem = (rows: Record<string, unknown>[]) =>
  [...rows].sort((a, b) => String(a.item_id).localeCompare(String(b.item_id)));

export function describeSchemaEvolution(name: string, target: StorageTarget) {
  describe(`schema evolution: ${name}`, () => {
    it("reads rows written under every older version with the newest schema", async () => {
      const { ns2 } = await evolved(target);
      const rows = byItem(await ns2.items.readModels());
      expect(rows).toEqual([
        { item_id: "a0", qty: 1n, status: "new" },
        { item_id: "a1", qty: 2n, status: "done" },
        { item_id: "a2", qty: 3n, status: "new" },
        { item_id: "b0", qty: 2n ** 40n, status: "archived", note: "hello" },
        { item_id: "c0", qty: 7n, status: "done", note: "late" },
      ]);
      const table = await ns2.items.read();
      expect(table.schema.fields.map((f) => f.name).slice(0, 4)).toEqual([
        "item_id",
        "qty",
        "status",
        "note",
      ]);
      expect(table.getChild("legacy")).toBeNull();
      const metrics = (await ns2.metrics.scan({ columns: ["k", "v", "unit"] }).toObjects()).sort(
        (a, b) => Number(a.k) - Number(b.k),
      );
      expect(metrics).toEqual([
        { k: 1n, v: 0.5, unit: null },
        { k: 2n, v: 1.5, unit: null },
        { k: 2n ** 40n, v: 0.1, unit: "m" },
      ]);
    });

    it("fills a required column added with a zod default in the rows written before it", async () => {
      const { storage } = await evolved(target);
      const opened = new Date(Date.UTC(2020, 0, 1));
      const V3 = V2.extend({
        priority: z.int().default(5),
        urgent: z.boolean().default(false),
        opened: z.date().default(() => opened),
        big: z.bigint().default(2n ** 62n),
      });
      const ns = await shop(V3, m1, { renames: { item_id: "id" }, drops: ["legacy"] }).open({ storage });
      await ns.push();
      await ns.items.append([
        { item_id: "d0", qty: 1n, status: "new", priority: 1, urgent: true, opened: new Date(0), big: 1n },
      ]);
      const rows = byItem(await ns.items.readModels());
      expect(rows.map((r) => [r.item_id, r.priority, r.urgent, r.opened, r.big])).toEqual([
        ["a0", 5, false, opened, 2n ** 62n],
        ["a1", 5, false, opened, 2n ** 62n],
        ["a2", 5, false, opened, 2n ** 62n],
        ["b0", 5, false, opened, 2n ** 62n],
        ["c0", 5, false, opened, 2n ** 62n],
        ["d0", 1, true, new Date(0), 1n],
      ]);
      // Files that predate the column are never pruned on it: their rows hold the default.
      const five = await ns.items
        .scan({ filter: (w) => w.eq("priority", 5), columns: ["item_id"] })
        .toObjects();
      expect(five.map((r) => r.item_id).sort()).toEqual(["a0", "a1", "a2", "b0", "c0"]);
      const versions = await ns.items.schemaVersions();
      expect(Object.keys(versions.at(-1)!.initialDefaults ?? {})).toHaveLength(4);
      // A default that has no stored form (an array) does not make a new required column acceptable.
      const V4 = V3.extend({ labels: z.array(z.string()).default([]) });
      await expectAvaError(
        (await shop(V4, m1, { renames: { item_id: "id" }, drops: ["legacy"] }).open({ storage })).push(),
        "SCHEMA_MISMATCH",
        /"labels" is new and required/,
        /default/,
      );
    });

    it("keeps the schema versions through a checkpoint of the catalog", async () => {
      const { storage } = await evolved(target);
      const state = await storage.catalog.current();
      const reopened = deserializeState(serializeState(state), (what) => new Error(what));
      expect(reopened.tables["shop.items"]!.schemas).toEqual(state.tables["shop.items"]!.schemas);
      expect(reopened.tables["shop.items"]!.schemas!.map((v) => v.id)).toEqual([0, 1, 2]);
      expect(reopened.tables["shop.items"]!.history.snapshots.map((s) => s.schemaId)).toEqual([0, 0, 1, 2]);
    });

    it("filters and prunes old files by their columns' identity, renamed or missing", async () => {
      const { ns2 } = await evolved(target);
      const renamed = ns2.items.scan({ filter: (w) => w.eq("item_id", "a1") });
      expect((await renamed.plan()).files).toHaveLength(1); // the stats of "id" in the first file
      expect(await renamed.toObjects()).toMatchObject([{ item_id: "a1", qty: 2n }]);
      const added = ns2.items.scan({ filter: (w) => w.eq("note", "late"), columns: ["item_id"] });
      const plan = await added.plan();
      expect(plan.prunedFiles).toHaveLength(3); // both v0 files have no note at all; b0's note is "hello"
      expect(await added.toObjects()).toEqual([{ item_id: "c0" }]);
      const missing = await ns2.items
        .scan({ filter: (w) => w.isNull("note"), columns: ["item_id"] })
        .toObjects();
      expect(missing.map((r) => r.item_id).sort()).toEqual(["a0", "a1", "a2"]);
      const widened = await ns2.metrics
        .scan({ filter: (w) => w.gt("k", 2n ** 33n), columns: ["k"] })
        .toObjects();
      expect(widened).toEqual([{ k: 2n ** 40n }]);
    });

    it("records the schema version of each snapshot, and time travel reads old snapshots with the current schema", async () => {
      const { ns2 } = await evolved(target);
      const history = await ns2.items.history();
      expect(history.map((s) => s.schemaId)).toEqual([0, 0, 1, 2]);
      const versions = await ns2.items.schemaVersions();
      expect(versions.map((v) => v.id)).toEqual([0, 1, 2]);
      expect(versions[2]!.fieldIds.item_id).toBe(versions[0]!.fieldIds.id); // a rename keeps the field id
      expect(versions[1]!.fieldIds.note).toBe(5); // a new column gets an id never used before
      const first = await ns2.items.scan({ snapshotId: history[0]!.id }).toObjects();
      expect(first.map((r) => [r.item_id, r.qty, r.note])).toEqual([
        ["a0", 1n, null],
        ["a1", 2n, null],
      ]);
    });

    it("lets an append_scan consumer read snapshots written before and after an evolution", async () => {
      const { storage } = await evolved(target);
      const seen: Record<string, unknown>[] = [];
      const consume = ava.step(
        async function consume_items(inj: { items: A.Table }) {
          seen.push(...inj.items.toArray().map((r) => ({ item_id: r.item_id, note: r.note })));
          return inj.items.numRows;
        },
        {
          inject: {
            items: ava.stream(Shop2.tables.items, { mode: "append_scan", key: "k", maxSnapshots: 10 }),
          },
        },
      );
      const flow = ava.workflow({ name: "consume-evolved" }, () => consume());
      expect((await flow.run({ storage }).result()).value).toBe(5);
      expect(seen.map((r) => r.item_id)).toEqual(["a0", "a1", "a2", "b0", "c0"]);
      expect(seen.map((r) => r.note)).toEqual([null, null, null, "hello", "late"]);
    });

    it("refuses incompatible changes before anything is written, naming table, column and the way out", async () => {
      const { storage } = await evolved(target);
      const before = (await storage.catalog.current()).version;
      const filesBefore = await storage.files.list("data/");
      const attempt = (items: z.ZodObject, options: Partial<ava.TableOptions<z.ZodObject>> = {}) =>
        shop(items, m1, options)
          .open({ storage })
          .then((ns) => ns.push());
      const base = { item_id: z.string(), qty: z.bigint(), status: z.enum(["new", "done", "archived"]) };
      await expectAvaError(
        attempt(z.object({ ...base, note: z.string().optional(), size: z.number() })),
        "SCHEMA_MISMATCH",
        /shop\.items/,
        /"size" is new and required/,
        /optional/,
      );
      await expectAvaError(
        attempt(z.object({ ...base, qty: z.int(), note: z.string().optional() })),
        "SCHEMA_MISMATCH",
        /"qty"/,
        /avalanche\.js=number/,
      );
      await expectAvaError(
        attempt(z.object({ ...base, qty: z.string(), note: z.string().optional() })),
        "SCHEMA_MISMATCH",
        /"qty" changes type from int64 to utf8/,
        /new name/,
      );
      await expectAvaError(
        attempt(z.object(base)),
        "SCHEMA_MISMATCH",
        /"note" is stored but no longer declared/,
        /drops/,
      );
      await expectAvaError(
        attempt(z.object({ ...base, note: z.string() })),
        "SCHEMA_MISMATCH",
        /"note" is nullable in the table and required/,
      );
      await expectAvaError(
        attempt(z.object({ ...base, note: z.string().optional(), memo: z.string().optional() }), {
          renames: { memo: "gone" },
        }),
        "SCHEMA_MISMATCH",
        /"memo" is declared as a rename of "gone"/,
      );
      const narrow = ava.defineNamespace({
        name: "shop",
        tables: {
          items: ava.table({ schema: V2 }),
          metrics: ava.table({
            schema: new A.Schema([
              new A.Field("k", new A.Int32(), false),
              new A.Field("v", new A.Float64(), true),
              new A.Field("unit", new A.Utf8(), true),
            ]),
          }),
        },
      });
      // items would evolve fine (nothing to change) but metrics narrows: the push commits nothing at all.
      await expectAvaError(
        (await narrow.open({ storage })).push(),
        "SCHEMA_MISMATCH",
        /shop\.metrics/,
        /"k" changes type from int64 to int32/,
      );
      expect((await storage.catalog.current()).version).toBe(before);
      expect(await storage.files.list("data/")).toEqual(filesBefore); // no file was written either
    });

    it("refuses reads and writes through an older or not yet pushed declaration", async () => {
      const { location, ns0 } = await evolved(target);
      await expectAvaError(
        ns0.items.append([{ id: "z", qty: 1, status: "new", legacy: "q" }]),
        "SCHEMA_MISMATCH",
        /schema version 2/,
        /declares version 0, an older one/,
      );
      await expectAvaError(ns0.items.read(), "SCHEMA_MISMATCH", /older one/);
      const other = location.open();
      const V3 = V2.extend({ tag: z.string().nullable() });
      const ns3 = await shop(V3, m1, { renames: { item_id: "id" }, drops: ["legacy"] }).open({
        storage: other,
      });
      await expectAvaError(ns3.items.append([]), "SCHEMA_MISMATCH", /call push\(\)/);
      await ns3.push();
      await ns3.items.append([{ item_id: "d0", qty: 1n, status: "new", tag: "t" }]);
      expect((await ns3.items.read()).numRows).toBe(6);
      await ns3.push(); // idempotent: the renames and drops already applied change nothing
      expect((await ns3.items.schemaVersions()).length).toBe(4);
    });

    it("refuses declarations whose renames or drops are ambiguous", async () => {
      const bad = (options: Partial<ava.TableOptions<z.ZodObject>>) => () =>
        ava.table({ schema: V2, ...options });
      await expectAvaError(bad({ renames: { nope: "id" } }), "INVALID_ARGUMENT", /"nope" is not a column/);
      await expectAvaError(
        bad({ renames: { item_id: "qty" } }),
        "INVALID_ARGUMENT",
        /"qty" is still a column/,
      );
      await expectAvaError(bad({ drops: ["note"] }), "INVALID_ARGUMENT", /drops: "note" is still a column/);
      await expectAvaError(
        bad({ renames: { item_id: "id" }, drops: ["id"] }),
        "INVALID_ARGUMENT",
        /source of a rename/,
      );
    });
  });
}
