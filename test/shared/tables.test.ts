import * as A from "apache-arrow";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import * as ava from "../../src/index.js";
import { Docs, doc, expectAvaError, telemetry } from "./fixtures.js";

let ns: Awaited<ReturnType<typeof Docs.open>>;

beforeEach(async () => {
  ns = await Docs.open({ storage: ava.memoryStorage() });
  await ns.push();
});

describe("append", () => {
  it("round-trips models exactly, with provenance stamped outside a run", async () => {
    const before = Date.now();
    const res = await ns.documents.append([doc(1), doc(4)]);
    expect(res.rowCount).toBe(2);
    expect(res.toModels()).toEqual([doc(1), doc(4)]);
    expect(await ns.documents.readModels()).toEqual([doc(1), doc(4)]);
    const row = res.toObjects()[0]!;
    expect((row._ava_updated_at as Date).getTime()).toBeGreaterThanOrEqual(before - 5);
    expect(row._ava_run_id).toBeNull();
    expect(row._ava_node_slug).toBeNull();
    expect(res.snapshot).toMatchObject({
      operation: "append",
      sequenceNumber: 1,
      parentId: null,
      addedRows: 2,
      totalRows: 2,
    });
  });

  it("accepts Arrow tables and record batches, casting losslessly", async () => {
    const t = telemetry("a", 0, 5); // channel arrives as Dictionary<Utf8>, cast to Utf8
    await ns.telemetry.append(t);
    await ns.telemetry.append(telemetry("b", 5, 3).batches[0]!);
    const narrow = new A.Table({
      channel: A.vectorFromArray(["c"], new A.Utf8()),
      ts: A.vectorFromArray([7], new A.Int32()),
      value: A.vectorFromArray([1.5], new A.Float32()),
    });
    await ns.telemetry.append(narrow);
    const out = await ns.telemetry.read();
    expect(out.numRows).toBe(9);
    expect(String(out.schema.fields[1]!.type)).toBe("Int64");
    expect(out.getChild("ts")!.get(8)).toBe(7n);
    expect(out.getChild("value")!.get(8)).toBe(1.5);
  });

  it("writes provenance columns replacing incoming ones, and none with rowLineage: false", async () => {
    const res = await ns.plain.append([{ k: "a", v: 1 }]);
    expect(res.toArrow().schema.fields.map((f) => f.name)).toEqual(["k", "v"]);
    const read = await ns.documents.append(doc(1));
    const again = await ns.documents.append(read.toArrow()); // a read table re-appended: _ava_ columns replaced
    expect(again.rowCount).toBe(1);
  });

  it("one() and oneOrNone() check cardinality", async () => {
    expect((await ns.documents.append(doc(2))).one()).toEqual(doc(2));
    const two = await ns.documents.append([doc(1), doc(2)]);
    await expectAvaError(() => two.one(), "CARDINALITY", /docs\.documents/, /got 2/);
    await expectAvaError(() => two.oneOrNone(), "CARDINALITY");
    const none = await ns.documents.overwrite([]); // the one way to a result of zero rows
    expect(none.oneOrNone()).toBeNull();
    await expectAvaError(async () => none.one(), "CARDINALITY", /got 0/);
  });

  it("refuses an append of zero rows (no empty snapshot is made)", async () => {
    const before = (await ns.documents.history()).length;
    await expectAvaError(ns.documents.append([]), "INVALID_ARGUMENT", /docs\.documents/, /no rows/);
    expect((await ns.documents.history()).length).toBe(before);
  });
});

describe("bad input is refused and nothing is written", () => {
  const refused = async (p: Promise<unknown>, ...patterns: RegExp[]) => {
    const before = await ns.documents.history();
    await expectAvaError(p, "SCHEMA_MISMATCH", /docs\.(documents|telemetry)/, ...patterns);
    expect(await ns.documents.history()).toEqual(before);
    // Every data file on storage is one a snapshot added (inlined appends have none).
    const written = [...before, ...(await ns.telemetry.history())]
      .flatMap((s) => s.addedFiles)
      .filter((f) => f.inline === undefined);
    expect(await ns.storage.files.list("data/")).toHaveLength(written.length);
  };

  it("a model failing zod names column and row", async () => {
    await ns.documents.append(doc(0));
    await refused(ns.documents.append([doc(1), doc(2), { ...doc(3), words: 1.5 }]), /column "words" row 2/);
    await refused(
      ns.documents.append([doc(1), { ...doc(2), kind: "memo" as "note" }]),
      /column "kind" row 1/,
    );
  });

  it("a missing column or a null in a non-nullable column names column and row", async () => {
    const { title: _, ...noTitle } = doc(5);
    await refused(ns.documents.append([doc(1), noTitle as never]), /column "title" row 1/);
    const nulls = A.tableFromArrays({ channel: ["a", "b", "c"], ts: new BigInt64Array(3), value: [1, 2, 3] });
    const withNull = new A.Table({
      channel: A.vectorFromArray(["a", null, "c"], new A.Utf8()),
      ts: nulls.getChild("ts")!,
      value: nulls.getChild("value")!,
    });
    await refused(ns.telemetry.append(withNull), /column "channel" row 1: null/);
    await refused(
      ns.telemetry.append(A.tableFromArrays({ channel: ["a"], value: [1] })),
      /column "ts" is missing/,
    );
  });

  it("a column of the wrong type or an unknown column is refused", async () => {
    const wrong = A.tableFromArrays({ channel: ["a"], ts: ["not a number"], value: [1] });
    await refused(ns.telemetry.append(wrong), /column "ts": expected Int64, got Dictionary/);
    const lossy = A.tableFromArrays({
      channel: ["a"],
      ts: new BigInt64Array(1),
      value: new Float64Array(1),
      extra: [1],
    });
    await refused(ns.telemetry.append(lossy), /column "extra" is not in the table's schema/);
    const u64 = new A.Table({
      channel: A.vectorFromArray(["a"], new A.Utf8()),
      ts: A.vectorFromArray([1n], new A.Uint64()),
      value: A.vectorFromArray([1], new A.Float64()),
    });
    await refused(ns.telemetry.append(u64), /expected Int64, got Uint64/);
  });

  it("plain objects of the wrong type on an Arrow-schema table name the column and row", async () => {
    await refused(
      ns.telemetry.append([
        { channel: "a", ts: 1n, value: 1 },
        { channel: "b", ts: "x", value: 2 },
      ]),
      /column "ts" row 1/,
    );
    await refused(ns.telemetry.append([{ channel: "a", ts: 2n ** 64n, value: 1 }]), /out of range/);
    await refused(ns.telemetry.append([{ channel: "a", ts: 1n, value: 1, typo: 3 }]), /"typo"/);
    await refused(ns.telemetry.append(42 as never), /cannot append number/);
  });

  it("a model with a field its zod schema does not declare is refused, not silently dropped", async () => {
    await refused(ns.documents.append({ ...doc(1), extra: 1 } as never), /row 0: column "extra" is not in/);
    await expectAvaError(
      ns.plain.append([{ k: "a", v: 1 }, { k: "b", v: 2, typo: "x" } as never]),
      "SCHEMA_MISMATCH",
      /docs\.plain: row 1: column "typo"/,
    );
    expect(await ns.plain.history()).toEqual([]);
  });

  it("names that plain objects already hold (__proto__, constructor) are INVALID_NAME", async () => {
    const decl = ava.table({ schema: z.object({ k: z.string() }) });
    for (const name of ["__proto__", "constructor", "hasOwnProperty", "toString"]) {
      await expectAvaError(
        () => ava.defineNamespace({ name: "ok", tables: { [name]: decl } }),
        "INVALID_NAME",
        new RegExp(name),
      );
      await expectAvaError(() => ava.defineNamespace({ name, tables: {} }), "INVALID_NAME", new RegExp(name));
    }
  });

  it("appending to a table that was never pushed is NOT_FOUND and writes no file", async () => {
    const other = await Docs.open({ storage: ava.memoryStorage() });
    await expectAvaError(other.documents.append(doc(1)), "NOT_FOUND", /docs\.documents/, /push/);
    expect(await other.storage.files.list("")).toEqual([]);
  });

  it("a declaration that differs from the stored table is refused", async () => {
    const Changed = ava.defineNamespace({
      name: "docs",
      tables: {
        telemetry: ava.table({ schema: new A.Schema([new A.Field("channel", new A.Utf8(), false)]) }),
      },
    });
    const changed = await Changed.open({ storage: ns.storage });
    await expectAvaError(changed.push(), "SCHEMA_MISMATCH", /docs\.telemetry/);
    await expectAvaError(changed.telemetry.read(), "SCHEMA_MISMATCH", /docs\.telemetry/);
  });
});

describe("snapshots and time travel", () => {
  it("records every snapshot with its parent, sequence, operation, files and row counts", async () => {
    const a = await ns.telemetry.append(telemetry("a", 0, 10));
    const b = await ns.telemetry.append(telemetry("b", 10, 5));
    const c = await ns.telemetry.overwrite(telemetry("c", 20, 2));
    const history = await ns.telemetry.history();
    expect(
      history.map((s) => [s.sequenceNumber, s.operation, s.addedRows, s.removedRows, s.totalRows]),
    ).toEqual([
      [1, "append", 10, 0, 10],
      [2, "append", 5, 0, 15],
      [3, "overwrite", 2, 15, 2],
    ]);
    expect(history.map((s) => s.parentId)).toEqual([null, a.snapshotId, b.snapshotId]);
    expect(c.snapshot.removedFiles.sort()).toEqual(
      [...a.snapshot.addedFiles, ...b.snapshot.addedFiles].map((f) => f.path).sort(),
    );
    expect((await ns.telemetry.currentSnapshot())!.id).toBe(c.snapshotId);
    expect((await ns.telemetry.read({ snapshotId: a.snapshotId })).numRows).toBe(10);
    expect((await ns.telemetry.read({ snapshotId: b.snapshotId })).numRows).toBe(15);
    expect((await ns.telemetry.read()).numRows).toBe(2);
  });

  it("an unknown snapshot id is NOT_FOUND", async () => {
    await ns.telemetry.append(telemetry("a", 0, 1));
    await expectAvaError(ns.telemetry.read({ snapshotId: "nope" }), "NOT_FOUND", /docs\.telemetry/, /nope/);
    await expectAvaError(ns.telemetry.snapshot("nope"), "NOT_FOUND", /nope/);
  });

  it("a table with no snapshot reads as empty with its schema", async () => {
    const empty = await ns.documents.read();
    expect(empty.numRows).toBe(0);
    expect(empty.schema.fields.length).toBe(ns.documents.schema.fields.length);
    expect(await ns.documents.currentSnapshot()).toBeUndefined();
  });
});

describe("scans", () => {
  beforeEach(async () => {
    await ns.telemetry.append(telemetry("a", 0, 100)); // ts 0..99
    await ns.telemetry.append(telemetry("b", 100, 100)); // ts 100..199
    await ns.telemetry.append(telemetry("c", 200, 100)); // ts 200..299
  });

  it("projects columns", async () => {
    const t = await ns.telemetry.scan({ columns: ["ts", "_ava_updated_at"] }).toArrow();
    expect(t.schema.fields.map((f) => f.name)).toEqual(["ts", "_ava_updated_at"]);
    expect(t.numRows).toBe(300);
    await expectAvaError(
      () => ns.telemetry.scan({ columns: ["nope"] }),
      "NOT_FOUND",
      /"nope"/,
      /docs\.telemetry/,
    );
  });

  it("prunes files by their statistics and filters rows exactly", async () => {
    const scan = ns.telemetry.scan({ filter: (w) => w.between("ts", 150n, 160n) });
    const plan = await scan.plan();
    expect(plan.files).toHaveLength(1);
    expect(plan.prunedFiles).toHaveLength(2);
    const rows = await scan.toObjects();
    expect(rows.map((r) => r.ts)).toEqual(Array.from({ length: 11 }, (_, i) => BigInt(150 + i)));
  });

  it.each<[string, ava.Predicate, number, number]>([
    ["eq on a string", ava.where.eq("channel", "b"), 1, 100],
    ["in", ava.where.in("channel", ["a", "c"]), 2, 200],
    ["or", ava.where.or(ava.where.lt("ts", 5), ava.where.gte("ts", 295)), 2, 10],
    ["and", ava.where.and(ava.where.eq("channel", "a"), ava.where.gt("value", 40)), 1, 19],
    ["ne", ava.where.ne("channel", "a"), 2, 200],
    ["isNull on a column without nulls", ava.where.isNull("value"), 0, 0],
    ["notNull", ava.where.notNull("value"), 3, 300],
  ])(
    "%s: reads only the files that may match, and exactly the rows that do",
    async (_, filter, files, rows) => {
      const scan = ns.telemetry.scan({ filter });
      expect((await scan.plan()).files).toHaveLength(files);
      const expected = (await ns.telemetry.read()).toArray().filter((r) => {
        const row = { channel: r.channel as string, ts: r.ts as bigint, value: r.value as number };
        switch (_) {
          case "eq on a string":
            return row.channel === "b";
          case "in":
            return row.channel === "a" || row.channel === "c";
          case "or":
            return row.ts < 5n || row.ts >= 295n;
          case "and":
            return row.channel === "a" && row.value > 40;
          case "ne":
            return row.channel !== "a";
          case "isNull on a column without nulls":
            return false;
          default:
            return true;
        }
      });
      const got = await scan.toArrow();
      expect(got.numRows).toBe(rows);
      expect(got.toArray().map((r) => `${r.channel}/${r.ts}`)).toEqual(
        expected.map((r) => `${r.channel}/${r.ts}`),
      );
    },
  );

  it("filters on timestamps with Dates, and on provenance columns", async () => {
    const docs = [doc(1), doc(10), doc(20)];
    await ns.documents.append(docs);
    const since = new Date(Date.UTC(2024, 0, 10));
    const got = await ns.documents.readModels({ filter: (w) => w.gte("created", since) });
    expect(got.map((d) => d.doc_id)).toEqual(["doc-10", "doc-20"]);
    const outsideRuns = await ns.documents.scan({ filter: ava.where.isNull("_ava_run_id") }).toArrow();
    expect(outsideRuns.numRows).toBe(3);
  });

  it("streams record batches file by file", async () => {
    const sizes: number[] = [];
    for await (const batch of ns.telemetry.scan({ columns: ["ts"] }).batches()) sizes.push(batch.numRows);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(300);
    expect(sizes.length).toBeGreaterThanOrEqual(3);
  });

  it("refuses a filter on an unknown column or with a value of the wrong type", async () => {
    await expectAvaError(() => ns.telemetry.scan({ filter: ava.where.eq("nope", 1) }), "NOT_FOUND", /"nope"/);
    await expectAvaError(
      () => ns.telemetry.scan({ filter: ava.where.eq("ts", "x") }),
      "INVALID_ARGUMENT",
      /docs\.telemetry\.ts/,
    );
  });
});

describe("model tables", () => {
  it("readModels validates; Arrow-schema tables have no models", async () => {
    await ns.telemetry.append(telemetry("a", 0, 1));
    await expectAvaError(ns.telemetry.readModels(), "INVALID_ARGUMENT", /docs\.telemetry/);
    const Opt = ava.defineNamespace({
      name: "opt",
      tables: {
        t: ava.table({
          schema: z.object({ a: z.string().optional(), b: z.object({ c: z.int().optional() }) }),
        }),
      },
    });
    const opt = await Opt.open({ storage: ns.storage });
    await opt.push();
    await opt.t.append([{ b: {} }, { a: "x", b: { c: 2 } }]);
    expect(await opt.t.readModels()).toEqual([{ b: {} }, { a: "x", b: { c: 2 } }]);
  });
});
