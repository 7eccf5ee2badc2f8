// Values crossing into workers: Arrow tables go as their own buffers, moved (transferred) or copied by
// structured clone, and come back equal — every column type the library stores, slices, dictionaries.
import * as A from "apache-arrow";
import { expect, it } from "vitest";
import * as ava from "../../src/index.js";
import { decodeValue, encodeValue } from "../../src/workflow/crossing.js";

function sample(): A.Table {
  const n = 1000;
  return new A.Table({
    i: A.makeVector(Int32Array.from({ length: n }, (_, k) => k)),
    big: A.makeVector(BigInt64Array.from({ length: n }, (_, k) => BigInt(k) * 10_000_000_000n)),
    f: A.vectorFromArray(
      Array.from({ length: n }, (_, k) => (k % 7 === 0 ? null : k / 3)),
      new A.Float64(),
    ),
    s: A.vectorFromArray(
      Array.from({ length: n }, (_, k) => (k % 5 === 0 ? null : `s${k}`)),
      new A.Utf8(),
    ),
    d: A.vectorFromArray(
      Array.from({ length: n }, (_, k) => ["a", "b", "c"][k % 3]!),
      new A.Dictionary(new A.Utf8(), new A.Int32()),
    ),
    l: A.vectorFromArray(
      Array.from({ length: n }, (_, k) => (k % 4 === 0 ? null : [k, k + 1])),
      new A.List(new A.Field("item", new A.Int32(), true)),
    ),
    st: A.vectorFromArray(
      Array.from({ length: n }, (_, k) => ({ x: k, y: `y${k}` })),
      new A.Struct([new A.Field("x", new A.Int32(), true), new A.Field("y", new A.Utf8(), true)]),
    ),
    b: A.vectorFromArray(
      Array.from({ length: n }, (_, k) => k % 2 === 0),
      new A.Bool(),
    ),
  });
}

const rows = (t: A.Table) => JSON.stringify(t.toArray(), (_, v) => (typeof v === "bigint" ? `${v}n` : v));

function cross(value: unknown, move: boolean): unknown {
  const out = encodeValue(value, { move });
  return decodeValue(structuredClone(out.value, { transfer: out.transfer }));
}

it("copies Arrow tables of every column type across, leaving the sender's intact", () => {
  const table = sample();
  const expected = rows(table);
  const back = cross({ t: table, n: 1, skip: ava.skip("why") }, false) as {
    t: A.Table;
    n: number;
    skip: ava.Skip;
  };
  expect(back.t).toBeInstanceOf(A.Table);
  expect(back.t.schema.fields.map((f) => String(f.type))).toEqual(
    table.schema.fields.map((f) => String(f.type)),
  );
  expect(rows(back.t)).toBe(expected);
  expect(rows(table)).toBe(expected); // not detached
  expect(back.n).toBe(1);
  expect(ava.isSkip(back.skip) && back.skip.reason).toBe("why");
});

it("moves a table by transferring its buffers: no copy, the sender's buffers are detached", () => {
  const table = new A.Table({
    x: A.makeVector(Float64Array.from({ length: 100_000 }, (_, k) => k)),
    t: A.makeVector(BigInt64Array.from({ length: 100_000 }, (_, k) => BigInt(k))),
  });
  expect((encodeValue(table).value as { __ava: string }).__ava).toBe("arrow"); // its own buffers, as they are
  const buffer = (table.getChild("x")!.data[0]!.values as Float64Array).buffer;
  const back = cross(table, true) as A.Table;
  expect(buffer.byteLength).toBe(0); // transferred
  expect(back.getChild("x")!.get(99_999)).toBe(99_999);
  expect(back.getChild("t")!.get(99_999)).toBe(99_999n);
});

it("copies a slice rather than transferring the larger buffer it views", () => {
  const table = sample();
  const slice = table.slice(100, 300);
  expect((encodeValue(slice, { move: true }).value as { __ava: string }).__ava).toBe("arrow-ipc");
  const back = cross(slice, true) as A.Table;
  expect(rows(back)).toBe(rows(slice));
  expect(rows(table)).toBe(rows(sample())); // the whole table is still readable
});

it("crosses AppendResults with their snapshot and rows", async () => {
  const storage = ava.memoryStorage();
  const Ns = ava.defineNamespace({
    name: "x",
    tables: { t: ava.table({ schema: sample().schema, rowLineage: false }) },
  });
  const ns = await Ns.open({ storage });
  await ns.push();
  const res = await ns.t.append(sample());
  const back = cross(res, true) as ava.AppendResult<unknown>;
  expect(back).toBeInstanceOf(ava.AppendResult);
  expect(back.snapshotId).toBe(res.snapshotId);
  expect(back.rowCount).toBe(1000);
  expect(rows(back.data)).toBe(rows(sample()));
});
