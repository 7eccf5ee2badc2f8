// Hostile values and malformed options: each is an AvaError naming what is wrong, never a TypeError or a
// RangeError from deep inside zod, JSON.stringify or parquet-wasm, and nothing is written.
import * as A from "apache-arrow";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as ava from "../../src/index.js";
import { expectAvaError } from "./fixtures.js";

const Json = ava.defineNamespace({
  name: "hostile",
  tables: {
    j: ava.table({ schema: z.object({ id: z.string(), m: ava.json() }) }),
    k: ava.table({ schema: z.object({ k: z.string(), n: z.int() }) }),
  },
});

const nestedArray = (n: number) => {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = [v];
  return v;
};

const nestedZod = (n: number) => {
  let s: z.ZodObject = z.object({ x: z.int() });
  for (let i = 0; i < n; i++) s = z.object({ c: s });
  return s;
};

describe("JSON column values", () => {
  it("a cycle, 100k levels of nesting or a bigint is SCHEMA_MISMATCH naming the column; nothing is written", async () => {
    const ns = await Json.open({ storage: ava.memoryStorage() });
    await ns.push();
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.me = cyclic;
    await expectAvaError(ns.j.append({ id: "a", m: cyclic }), "SCHEMA_MISMATCH", /column "m" row 0/, /cycle/);
    await expectAvaError(
      ns.j.append([
        { id: "ok", m: 1 },
        { id: "b", m: nestedArray(100_000) },
      ]),
      "SCHEMA_MISMATCH",
      /column "m" row 1/,
      /deeper than 1000 levels/,
    );
    await expectAvaError(ns.j.append({ id: "c", m: { n: 1n } as never }), "SCHEMA_MISMATCH", /column "m"/);
    expect(await ns.j.history()).toEqual([]);
    // Deep but within the limit is fine, and reads back.
    await ns.j.append({ id: "d", m: nestedArray(500) });
    expect(JSON.stringify((await ns.j.readModels())[0]!.m)).toBe(JSON.stringify(nestedArray(500)));
  });
});

describe("nesting limits at definition", () => {
  it("structs nested 500 or 5,000 deep are refused when declared, naming the limit", () => {
    for (const depth of [500, 5000]) {
      expect(() => ava.table({ schema: nestedZod(depth) })).toThrowError(/deeper than 64 levels/);
      try {
        ava.table({ schema: nestedZod(depth) });
      } catch (e) {
        expect(ava.isAvaError(e, "UNSUPPORTED_TYPE")).toBe(true);
      }
    }
    let type: A.DataType = new A.Int32();
    for (let i = 0; i < 500; i++) type = new A.Struct([new A.Field("c", type, true)]);
    expect(() => ava.table({ schema: new A.Schema([new A.Field("s", type, true)]) })).toThrowError(
      /"s\.c\.c.*deeper than 64 levels/,
    );
  });

  it("a struct nested within the limit appends and reads back", async () => {
    const Deep = ava.defineNamespace({ name: "deep", tables: { t: ava.table({ schema: nestedZod(40) }) } });
    const ns = await Deep.open({ storage: ava.memoryStorage() });
    await ns.push();
    let row: Record<string, unknown> = { x: 7 };
    for (let i = 0; i < 40; i++) row = { c: row };
    await ns.t.append(row as never);
    expect(await ns.t.readModels()).toEqual([row]);
  });
});

describe("malformed options and filters", () => {
  it("is INVALID_ARGUMENT", async () => {
    await expectAvaError(
      () => ava.defineNamespace({ name: "x", tables: null as never }),
      "INVALID_ARGUMENT",
      /tables/,
    );
    await expectAvaError(() => ava.table({ schema: null as never }), "INVALID_ARGUMENT", /schema/);
    await expectAvaError(() => ava.table(undefined as never), "INVALID_ARGUMENT", /schema/);
    await expectAvaError(() => ava.table({ schema: 42 as never }), "INVALID_ARGUMENT", /schema/);
    await expectAvaError(() => ava.table({ schema: {} as never }), "UNSUPPORTED_TYPE", /z\.object/);

    const ns = await Json.open({ storage: ava.memoryStorage() });
    await ns.push();
    await ns.k.append({ k: "a", n: 1 });
    const bad: [unknown, RegExp][] = [
      [{ op: "in", column: "k", values: "abc" }, /"in" on hostile\.k\.k needs an array/],
      [{ op: "in", column: "k", values: null }, /needs an array/],
      [5, /predicate object/],
      [{ op: "eq", value: 1 }, /needs a column name/],
      [{ op: "and", args: [null] }, /predicate object/],
    ];
    for (const [filter, message] of bad)
      await expectAvaError(
        () => ns.k.scan({ filter: filter as never }).toArrow(),
        "INVALID_ARGUMENT",
        message,
      );
  });
});
