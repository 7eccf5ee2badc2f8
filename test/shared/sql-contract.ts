// SQL over namespace tables, run against each engine (native DuckDB in Node, duckdb-wasm in Chromium) on
// each storage. Every result is checked against a reference computed in JS from table.read().
import * as A from "apache-arrow";
import { z } from "zod";
import { afterEach, describe, expect, it } from "vitest";
import * as ava from "../../src/index.js";
import type { SqlDatabase } from "../../src/sql/database.js";
import { expectAvaError } from "./fixtures.js";

const Shop = ava.defineNamespace({
  name: "shop",
  tables: {
    customers: ava.table({ schema: z.object({ id: z.int(), name: z.string(), region: z.string() }) }),
    orders: ava.table({
      schema: z.object({ id: z.int(), customer_id: z.int(), amount: z.number(), at: z.date() }),
    }),
    events: ava.table({
      schema: new A.Schema([
        new A.Field("channel", new A.Utf8(), false),
        new A.Field("ts", new A.Int64(), false),
        new A.Field("value", new A.Float64(), true),
      ]),
    }),
    unpushed: ava.table({ schema: z.object({ x: z.int() }) }),
  },
});
type ShopNs = Awaited<ReturnType<typeof Shop.open>>;

export interface SqlTarget {
  open(ns: ava.NamespaceHandle): Promise<SqlDatabase>;
  storage(): ava.Storage | Promise<ava.Storage>;
}

const regions = ["north", "south", "east"];
const customers = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: from + i,
    name: `c${from + i}`,
    region: regions[(from + i) % 3]!,
  }));
const orders = (from: number, n: number, customersCount: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: from + i,
    customer_id: (from + i * 7) % customersCount,
    amount: Math.round(((from + i) * 37) % 1000) / 10,
    at: new Date(Date.UTC(2025, 0, 1 + ((from + i) % 28))),
  }));
function events(from: number, n: number): A.Table {
  return A.tableFromArrays({
    channel: Array.from({ length: n }, (_, i) => `ch${(from + i) % 4}`),
    ts: BigInt64Array.from({ length: n }, (_, i) => BigInt(from + i)),
    value: Float64Array.from({ length: n }, (_, i) => ((from + i) % 17) * 1.5),
  });
}

/** Rows of an Arrow table as plain objects with numbers (bigint and Float64 alike) for comparison. */
function plain(t: A.Table): Record<string, unknown>[] {
  return t
    .toArray()
    .map((row) =>
      Object.fromEntries(
        Object.entries(row.toJSON()).map(([k, v]) => [k, typeof v === "bigint" ? Number(v) : v]),
      ),
    );
}

// References, computed in JS from table.read().
async function revenueByRegion(ns: ShopNs, at: { customers?: string; orders?: string } = {}) {
  const cs = plain(await ns.customers.read(at.customers ? { snapshotId: at.customers } : {}));
  const os = plain(await ns.orders.read(at.orders ? { snapshotId: at.orders } : {}));
  const regionOf = new Map(cs.map((c) => [c.id, c.region as string]));
  const out = new Map<string, { orders: number; revenue: number }>();
  for (const o of os) {
    const region = regionOf.get(o.customer_id);
    if (region === undefined) continue;
    const r = out.get(region) ?? { orders: 0, revenue: 0 };
    r.orders++;
    r.revenue += o.amount as number;
    out.set(region, r);
  }
  return [...out]
    .map(([region, r]) => ({ region, orders: r.orders, revenue: Math.round(r.revenue * 100) / 100 }))
    .sort((a, b) => a.region.localeCompare(b.region));
}

const REVENUE_SQL = `SELECT c.region, count(*) AS orders, round(sum(o.amount), 2) AS revenue
  FROM orders o JOIN customers c ON o.customer_id = c.id GROUP BY c.region ORDER BY c.region`;

export function describeSql(name: string, target: SqlTarget): void {
  describe(`SQL over namespace tables: ${name}`, () => {
    let db: SqlDatabase | undefined;
    afterEach(async () => {
      await db?.close();
      db = undefined;
    });

    async function setup(): Promise<ShopNs> {
      const storage = await target.storage();
      const ns = await Shop.open({ storage });
      // push only the three real tables: `unpushed` stays missing from the catalog
      const Pushed = ava.defineNamespace({
        name: "shop",
        tables: { customers: Shop.tables.customers, orders: Shop.tables.orders, events: Shop.tables.events },
      });
      await (await Pushed.open({ storage })).push();
      await ns.customers.append(customers(0, 30));
      await ns.orders.append(orders(0, 200, 30));
      await ns.events.append(events(0, 1000));
      return ns;
    }

    it("answers group-by, filter and join queries as table.read() does, and sees appends at once", async () => {
      const ns = await setup();
      db = await target.open(ns);
      const result = await db.query(REVENUE_SQL);
      expect(result).toBeInstanceOf(A.Table); // the library's own apache-arrow, not a second copy
      expect(plain(result)).toEqual(await revenueByRegion(ns));

      const filtered = plain(
        await db.query("SELECT channel, ts, value FROM events WHERE value > 20 ORDER BY ts"),
      );
      const reference = plain(await ns.events.read())
        .filter((r) => (r.value as number) > 20)
        .map(({ channel, ts, value }) => ({ channel, ts, value }));
      expect(filtered).toEqual(reference);

      const perChannel = plain(
        await db.query(
          "SELECT channel, count(*) AS n, sum(value) AS total FROM events GROUP BY channel ORDER BY channel",
        ),
      );
      expect(perChannel.map((r) => r.n)).toEqual([250, 250, 250, 250]);

      // An append is seen by the next query, and loads only its own file.
      const before = db.loads;
      await ns.orders.append(orders(200, 50, 30));
      await ns.customers.append(customers(30, 5));
      expect(plain(await db.query(REVENUE_SQL))).toEqual(await revenueByRegion(ns));
      expect(db.loads.files - before.files).toBe(2);
      expect(db.loads.rows - before.rows).toBe(55);
    });

    it("does not reload unchanged data: repeated queries load nothing", async () => {
      const ns = await setup();
      db = await target.open(ns);
      await db.query("SELECT count(*) FROM events");
      const after = db.loads;
      expect(after.files).toBe(3); // one file per table, each once
      for (let i = 0; i < 5; i++) await db.query(REVENUE_SQL);
      expect(db.loads).toEqual(after);
    });

    it("pins older snapshots with at() (time travel) and sees overwrites", async () => {
      const ns = await setup();
      db = await target.open(ns);
      const oldOrders = (await ns.orders.currentSnapshot())!.id;
      const oldCustomers = (await ns.customers.currentSnapshot())!.id;
      await ns.orders.append(orders(200, 100, 30));
      await ns.customers.overwrite(customers(0, 10));

      const now = plain(await db.query(REVENUE_SQL));
      expect(now).toEqual(await revenueByRegion(ns));
      const past = db.at({ orders: oldOrders, customers: oldCustomers });
      expect(plain(await past.query(REVENUE_SQL))).toEqual(
        await revenueByRegion(ns, { orders: oldOrders, customers: oldCustomers }),
      );
      expect(plain(await past.query("SELECT count(*) AS n FROM customers"))).toEqual([{ n: 30 }]);
      // the pinned handle and the current one interleave without seeing each other's views
      expect(plain(await db.query("SELECT count(*) AS n FROM customers"))).toEqual([{ n: 10 }]);
      expect(plain(await past.query("SELECT count(*) AS n FROM orders"))).toEqual([{ n: 200 }]);
    });

    it("exposes the provenance columns", async () => {
      const ns = await setup();
      db = await target.open(ns);
      const rows = plain(
        await db.query(
          "SELECT count(*) AS n, count(_ava_updated_at) AS stamped, count(_ava_run_id) AS in_run FROM orders",
        ),
      );
      expect(rows).toEqual([{ n: 200, stamped: 200, in_run: 0 }]);
    });

    it("queries an ingested Avro stream, whose channel and tags are dictionary-encoded", async () => {
      const Telemetry = ava.defineNamespace({
        name: "telemetry",
        tables: { points: ava.table({ schema: ava.avro.avroStreamArrowSchema }) },
      });
      const ns = await Telemetry.open({ storage: await target.storage() });
      await ns.push();
      const sink = ava.avro.memorySink();
      const w = ava.avro.createWriter(sink);
      for (let i = 0; i < 30; i++) w.enqueue(`ch${i % 3}`, BigInt(i), i * 0.5, { unit: i % 2 ? "m" : "ft" });
      await w.close();
      await ns.points.appendAvroStream(sink.bytes());
      expect(A.DataType.isDictionary((await ns.points.read()).schema.fields[0]!.type)).toBe(true);
      db = await target.open(ns);
      const rows = plain(
        await db.query(
          `SELECT channel, tags, count(*) AS n, sum("double") AS total FROM points
           WHERE channel <> 'ch2' GROUP BY ALL ORDER BY channel, tags`,
        ),
      );
      const expected = [];
      for (const channel of ["ch0", "ch1"])
        for (const unit of ["ft", "m"]) {
          const is = Array.from({ length: 30 }, (_, i) => i).filter(
            (i) => `ch${i % 3}` === channel && (i % 2 ? "m" : "ft") === unit,
          );
          const tags = JSON.stringify({ unit });
          expected.push({ channel, tags, n: is.length, total: is.reduce((a, i) => a + i * 0.5, 0) });
        }
      expect(rows).toEqual(expected);
    });

    it("views files written under older schema versions as the current one (renamed, widened, added)", async () => {
      const storage = await target.storage();
      const v0 = z.object({ sku: z.string(), qty: z.int(), price: z.number() });
      const v1 = z.object({
        item: z.string(),
        qty: z.bigint(),
        price: z.number(),
        note: z.string().optional(),
      });
      const Old = ava.defineNamespace({ name: "evo", tables: { stock: ava.table({ schema: v0 }) } });
      const New = ava.defineNamespace({
        name: "evo",
        tables: { stock: ava.table({ schema: v1, renames: { item: "sku" } }) },
      });
      const old = await Old.open({ storage });
      await old.push();
      const first = await old.stock.append([
        { sku: "a", qty: 1, price: 1.5 },
        { sku: "b", qty: 2, price: 2.5 },
      ]);
      const ns = await New.open({ storage });
      await ns.push();
      await ns.stock.append([{ item: "c", qty: 2n ** 40n, price: 3.5, note: "new" }]);
      db = await target.open(ns);
      const rows = plain(await db.query("SELECT item, qty, price, note FROM stock ORDER BY item"));
      expect(rows).toEqual([
        { item: "a", qty: 1, price: 1.5, note: null },
        { item: "b", qty: 2, price: 2.5, note: null },
        { item: "c", qty: 2 ** 40, price: 3.5, note: "new" },
      ]);
      const pinned = db.at({ stock: first.snapshot.id });
      expect(plain(await pinned.query("SELECT count(*) AS n, max(item) AS last FROM stock"))).toEqual([
        { n: 2, last: "b" },
      ]);
      // A database opened with the old declaration is told to update, not shown a wrong view.
      const stale = await target.open(old);
      await expectAvaError(stale.query("SELECT * FROM stock"), "SCHEMA_MISMATCH", /older one/);
      await stale.close();
    });

    it("takes query parameters", async () => {
      const ns = await setup();
      db = await target.open(ns);
      const rows = plain(
        await db.query("SELECT count(*) AS n FROM events WHERE channel = ? AND ts < ?", ["ch1", 100]),
      );
      expect(rows).toEqual([{ n: 25 }]);
    });

    it("refuses bad SQL, missing tables and unknown snapshots with clear AvaErrors", async () => {
      const ns = await setup();
      db = await target.open(ns);
      await expectAvaError(db.query("SELEKT 1"), "SQL_ERROR", /syntax/i);
      await expectAvaError(db.query("SELECT * FROM unpushed"), "SQL_ERROR", /unpushed/);
      await expectAvaError(db.query("SELECT * FROM nowhere"), "SQL_ERROR", /nowhere/);
      await expectAvaError(
        db.at({ orders: "01NOPE" }).query("SELECT 1"),
        "NOT_FOUND",
        /shop\.orders.*01NOPE/,
      );
      expect(() => db!.at({ ghosts: "x" })).toThrow(/ghosts is not a table/);
      // An extension that is not built in fails at once instead of being fetched from the network.
      await expectAvaError(
        db.query("SELECT * FROM read_xlsx('x.xlsx')"),
        "SQL_ERROR",
        /read_xlsx|excel|extension/i,
      );
      // the database still works after the errors
      expect(plain(await db.query("SELECT count(*) AS n FROM customers"))).toEqual([{ n: 30 }]);
      await db.close();
      await expectAvaError(db.query("SELECT 1"), "INVALID_ARGUMENT", /closed/);
    });

    it("gives an empty table (with its columns) before the first append", async () => {
      const storage = await target.storage();
      const ns = await Shop.open({ storage });
      const Pushed = ava.defineNamespace({ name: "shop", tables: { events: Shop.tables.events } });
      await (await Pushed.open({ storage })).push();
      db = await target.open(ns);
      const empty = await db.query("SELECT * FROM events");
      expect(empty.numRows).toBe(0);
      expect(empty.schema.fields.map((f) => f.name).slice(0, 3)).toEqual(["channel", "ts", "value"]);
      await ns.events.append(events(0, 10));
      expect(plain(await db.query("SELECT count(*) AS n FROM events"))).toEqual([{ n: 10 }]);
    });
  });
}

/** Hardening: DuckDB confined to the storage, every error an AvaError, internals apart, queries stoppable. */
export function describeSqlHardening(name: string, target: SqlTarget): void {
  describe(`SQL hardening: ${name}`, () => {
    const Odd = ava.defineNamespace({
      name: "odd",
      tables: {
        rows: ava.table({ schema: z.object({ k: z.string(), v: z.int() }) }),
        __ava_data_rows: ava.table({ schema: z.object({ x: z.string() }) }),
      },
    });

    async function openOdd() {
      const ns = await Odd.open({ storage: await target.storage() });
      await ns.push();
      await ns.rows.append([
        { k: "a", v: 1 },
        { k: "b", v: 2 },
      ]);
      await ns.__ava_data_rows.append({ x: "mine" });
      return { ns, db: await target.open(ns as never) };
    }

    it("refuses files outside the storage, extension loading and configuration changes", async () => {
      const { db } = await openOdd();
      try {
        const outside = `/tmp/ava-escape-${Date.now()}.csv`;
        await expectAvaError(
          db.query(`COPY (SELECT 42) TO '${outside}'`),
          "SQL_ERROR",
          /disabled|permission/i,
        );
        await expectAvaError(
          db.query("SELECT * FROM read_csv('/etc/passwd')"),
          "SQL_ERROR",
          /disabled|permission/i,
        );
        await expectAvaError(db.query("SET enable_external_access=true"), "SQL_ERROR", /locked/i);
        await expectAvaError(db.query("SET lock_configuration=false"), "SQL_ERROR", /locked/i);
        await expectAvaError(db.query("LOAD httpfs"), "SQL_ERROR");
        expect(plain(await db.query("SELECT sum(v) AS s FROM rows"))).toEqual([{ s: 3 }]);
      } finally {
        await db.close();
      }
    });

    it("keeps its own tables apart: a user table named __ava_data_rows works beside rows", async () => {
      const { db } = await openOdd();
      try {
        expect(plain(await db.query("SELECT x FROM __ava_data_rows"))).toEqual([{ x: "mine" }]);
        expect(plain(await db.query("SELECT k FROM rows ORDER BY k"))).toEqual([{ k: "a" }, { k: "b" }]);
      } finally {
        await db.close();
      }
    });

    it("recreates a view a query dropped", async () => {
      const { db } = await openOdd();
      try {
        await db.query("DROP VIEW rows");
        expect(plain(await db.query("SELECT count(*) AS n FROM rows"))).toEqual([{ n: 2 }]);
        await db.query("CREATE OR REPLACE VIEW rows AS SELECT 1 AS k");
        expect(plain(await db.query("SELECT count(*) AS n FROM rows"))).toEqual([{ n: 2 }]);
      } finally {
        await db.close();
      }
    });

    it("names a deleted data file as an AvaError", async () => {
      const { ns, db } = await openOdd();
      try {
        // 11 rows: over the inlining limit, so a data file to delete.
        const r = await ns.rows.append(Array.from({ length: 11 }, (_, i) => ({ k: `c${i}`, v: i })));
        await ns.storage.files.delete(r.snapshot.addedFiles[0]!.path);
        await expectAvaError(db.query("SELECT count(*) FROM rows"), "NOT_FOUND", /odd\.rows/);
      } finally {
        await db.close();
      }
    });

    it("stops a runaway query on timeout or abort, stays usable, and close() settles under one", async () => {
      const { db } = await openOdd();
      const runaway = "SELECT sum(a.range * b.range) AS s FROM range(200000) a, range(200000) b";
      const started = Date.now();
      await expectAvaError(db.query(runaway, [], { timeoutMs: 300 }), "TIMEOUT", /300 ms/);
      expect(Date.now() - started).toBeLessThan(20_000);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      await expectAvaError(db.query(runaway, [], { signal: controller.signal }), "CANCELLED");
      expect(plain(await db.query("SELECT count(*) AS n FROM rows"))).toEqual([{ n: 2 }]);
      await expectAvaError(db.query("SELECT 1", [], { timeoutMs: -1 }), "INVALID_ARGUMENT", /timeoutMs/);
      const running = db.query(runaway).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 300));
      await db.close(); // settles although the query would run for minutes
      expect(ava.isAvaError(await running)).toBe(true);
    });
  });
}
