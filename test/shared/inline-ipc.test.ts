// The inline payload's encoder caches its schema and record batch messages: it must write exactly what
// apache-arrow's tableToIPC writes, for every column type a table can hold, on a cache miss and on a hit,
// and what it writes must read back as the same rows.
import * as A from "apache-arrow";
import { describe, expect, it } from "vitest";
import { fromBase64, inlinePayload, inlineTable, toBase64 } from "../../src/table/inline-data.js";
import { tableToIpcStream } from "../../src/util/ipc-stream.js";
import { expectAvaError } from "./fixtures.js";

const point = new A.Struct([
  new A.Field("x", new A.Float64(), false),
  new A.Field("label", new A.Utf8(), true),
]);
/** Every type a declaration makes (zod-to-arrow.ts) or an Arrow schema may give (arrow-json.ts). */
const schema = new A.Schema([
  new A.Field("s", new A.Utf8(), true),
  new A.Field("b", new A.Bool(), true),
  new A.Field("i64", new A.Int64(), true),
  new A.Field("i32", new A.Int32(), true),
  new A.Field("f64", new A.Float64(), true),
  new A.Field("f32", new A.Float32(), true),
  new A.Field("ts", new A.TimestampMicrosecond("UTC"), true),
  new A.Field("ms", new A.TimestampMillisecond(), true),
  new A.Field("bin", new A.Binary(), true),
  new A.Field("list", new A.List(new A.Field("item", new A.Int32(), true)), true),
  new A.Field("point", point, true),
]);

const I64 = [-(2n ** 63n), 2n ** 63n - 1n, 0n, -1n, null];
const F64 = [-0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.MIN_VALUE, null];
const STRINGS = ["", "é ✓ 𝄞", "a\u0000b", "x".repeat(300), null];

/** `n` rows from `seed`: edge values in turn, and with `nulls` a null every few rows. */
function rows(seed: number, n: number, nulls = true): A.Table {
  const col = <T>(field: A.Field, make: (i: number) => T | null) =>
    A.vectorFromArray(
      Array.from({ length: n }, (_, i) => (nulls && (i + seed) % 4 === 0 ? null : make((i + seed) % 1000))),
      field.type,
    ).data[0]!;
  const at = <T>(xs: readonly T[], i: number) => xs[i % xs.length]!;
  const [s, b, i64, i32, f64, f32, ts, ms, bin, list, pt] = schema.fields;
  const children = [
    col(s!, (i) => at(STRINGS, i)),
    col(b!, (i) => i % 3 === 0),
    col(i64!, (i) => at(I64, i)),
    col(i32!, (i) => at([-(2 ** 31), 2 ** 31 - 1, 0, 7], i)),
    col(f64!, (i) => at(F64, i)),
    col(f32!, (i) => i / 8),
    col(ts!, (i) => 1_700_000_000_000 + i),
    col(ms!, (i) => -1_000 * i),
    col(bin!, (i) => Uint8Array.from({ length: i % 5 }, (_, k) => (k * 97 + i) & 0xff)),
    col(list!, (i) => Array.from({ length: i % 3 }, (_, k) => (k === 1 ? null : k + i))),
    col(pt!, (i) => ({ x: i * 1.5, label: i % 2 ? null : `p${i}` })),
  ];
  const data = A.makeData({ type: new A.Struct(schema.fields), length: n, nullCount: 0, children });
  return new A.Table([new A.RecordBatch(schema, data)]);
}

/** Rows as text that tells apart what JSON would merge (bigint, -0, NaN, bytes). */
function rowsText(table: A.Table): string {
  return JSON.stringify(
    table.toArray().map((r) => r.toJSON()),
    (_, v) => {
      if (typeof v === "bigint") return `${v}n`;
      if (typeof v === "number" && !Number.isFinite(v)) return String(v);
      if (typeof v === "number" && Object.is(v, -0)) return "-0";
      if (v instanceof Uint8Array) return [...v];
      if (v && typeof v === "object" && "toJSON" in v && typeof v.toJSON === "function") return v.toJSON();
      if (v && typeof v === "object" && Symbol.iterator in v && !Array.isArray(v)) return [...v];
      return v;
    },
  );
}

describe("the inline payload's IPC stream", () => {
  it("is tableToIPC's bytes for every column type, with nulls and edge values, cached or not", () => {
    // The same shape twice (a miss, then a hit), other shapes, other lengths, no nulls.
    const tables = [
      rows(1, 10),
      rows(1, 10),
      rows(2, 10),
      rows(5, 10),
      rows(0, 10, false),
      rows(3, 1),
      rows(7, 37),
    ];
    for (const table of tables) {
      const ours = tableToIpcStream(table);
      expect(ours).toEqual(A.tableToIPC(table, "stream"));
      expect(rowsText(A.tableFromIPC(ours))).toBe(rowsText(table));
    }
  });

  it("tells apart batches whose buffers are the same size and whose null counts are not", () => {
    const ints = (nulls: number) =>
      new A.Table({
        n: A.vectorFromArray(
          Array.from({ length: 10 }, (_, i) => (i < nulls ? null : i)),
          new A.Int32(),
        ),
      });
    for (const nulls of [1, 2, 3, 1])
      expect(tableToIpcStream(ints(nulls))).toEqual(A.tableToIPC(ints(nulls), "stream"));
  });

  it("reads back exactly through the catalog payload (base64 + CRC-32)", () => {
    const table = rows(9, 10);
    const payload = inlinePayload(table);
    const file = { path: "data/t/x.inline", rowCount: 10, stats: {}, ...payload };
    const back = inlineTable(file);
    expect(rowsText(back)).toBe(rowsText(table));
    expect(back.schema.fields.map((f) => String(f.type))).toEqual(schema.fields.map((f) => String(f.type)));
  });

  it("leaves a dictionary column to apache-arrow, and several batches too", () => {
    const dict = new A.Table({
      channel: A.vectorFromArray(["a", "b", "a", null], new A.Dictionary(new A.Utf8(), new A.Int32())),
    });
    expect(tableToIpcStream(dict)).toEqual(A.tableToIPC(dict, "stream"));
    const two = new A.Table([...rows(4, 3).batches, ...rows(6, 5).batches]);
    expect(tableToIpcStream(two)).toEqual(A.tableToIPC(two, "stream"));
  });

  it("a damaged payload is CATALOG_CORRUPT naming the file", async () => {
    const payload = inlinePayload(rows(2, 10));
    const at = payload.inline.length >> 1;
    const flipped = payload.inline[at] === "A" ? "B" : "A";
    const inline = payload.inline.slice(0, at) + flipped + payload.inline.slice(at + 1);
    const file = { path: "data/t/y.inline", rowCount: 10, stats: {}, ...payload, inline };
    await expectAvaError(() => inlineTable(file), "CATALOG_CORRUPT", /y\.inline/, /CRC-32/);
    // No CRC kept (as files inlined before it was): decoding finds the damage.
    const { inlineCrc: _, ...noCrc } = file;
    const cut = { ...noCrc, inline: payload.inline.slice(0, 40) };
    await expectAvaError(() => inlineTable(cut), "CATALOG_CORRUPT", /y\.inline/);
  });
});

it("payloads' base64 is the standard alphabet with padding, whichever encoder the engine offers", () => {
  // In Chromium the engine's Uint8Array.prototype.toBase64, in Node Buffer: both must write what btoa does.
  const every = Uint8Array.from({ length: 256 }, (_, i) => i);
  for (let n = 0; n <= 6; n++) {
    const bytes = every.subarray(250 - n, 250);
    const text = toBase64(bytes);
    expect(text).toBe(btoa(String.fromCharCode(...bytes)));
    expect([...fromBase64(text)]).toEqual([...bytes]);
  }
  expect(toBase64(every)).toBe(btoa(String.fromCharCode(...every)));
  // A view into a larger buffer encodes only its own bytes.
  expect(toBase64(every.subarray(1, 4))).toBe(btoa("\x01\x02\x03"));
  expect(() => fromBase64("not base64!")).toThrow();
});
