// NaN, ±Infinity and -0 in every numeric column type, through column statistics stored in the catalog and
// filters run by a fresh instance (which reads the stats back from the stored catalog, not from memory).
import * as A from "apache-arrow";
import { describe, expect, it } from "vitest";
import * as ava from "../../src/index.js";
import { bindPredicate, mayMatch } from "../../src/table/predicate.js";
import type { StorageTarget } from "./storage-contract.js";

const FLOAT_SPECIALS = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 0, 1.5, null];
const FLOAT_PLAIN = [2, 3, -4, null];

interface NumericCase {
  name: string;
  type: A.DataType;
  /** Two batches of values; each becomes its own data file. */
  files: (number | bigint | null)[][];
  /** Filter values tried with every comparison. */
  probes: (number | bigint)[];
}

const ints = (bits: 8 | 16 | 32, signed: boolean): NumericCase => {
  const max = signed ? 2 ** (bits - 1) - 1 : 2 ** bits - 1;
  const min = signed ? -(2 ** (bits - 1)) : 0;
  return {
    name: `${signed ? "Int" : "Uint"}${bits}`,
    type: new A.Int(signed, bits),
    files: [
      [min, max, 0, null],
      [1, 2, null],
    ],
    probes: [0, 1, max, min, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0],
  };
};

const CASES: NumericCase[] = [
  ints(8, true),
  ints(16, true),
  ints(32, true),
  ints(8, false),
  ints(16, false),
  ints(32, false),
  {
    name: "Int64",
    type: new A.Int64(),
    files: [
      [-(2n ** 63n), 2n ** 63n - 1n, 0n, null],
      [1n, 2n, null],
    ],
    probes: [0, 1n, 2n ** 63n - 1n, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0],
  },
  {
    name: "Uint64",
    type: new A.Uint64(),
    files: [
      [0n, 2n ** 64n - 1n, null],
      [1n, 2n, null],
    ],
    probes: [0, 1n, 2n ** 64n - 1n, Number.NaN, Number.POSITIVE_INFINITY, -0],
  },
  ...[new A.Float32(), new A.Float64()].map((type) => ({
    name: String(type),
    type,
    files: [FLOAT_SPECIALS, FLOAT_PLAIN, [Number.NaN, null]],
    probes: [0, -0, 1.5, 2, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY],
  })),
];

const OPS = ["eq", "ne", "lt", "lte", "gt", "gte"] as const;

/** The expected answer, by JavaScript's own comparison (null never matches; NaN equals nothing). */
function holds(op: (typeof OPS)[number], a: number | bigint, b: number | bigint): boolean {
  switch (op) {
    case "eq":
      // bigint against number, and NaN equal to nothing
      return !(a < b) && !(a > b) && !Number.isNaN(Number(a)) && !Number.isNaN(Number(b));
    case "ne":
      return !holds("eq", a, b);
    case "lt":
      return a < b;
    case "lte":
      return a <= b;
    case "gt":
      return a > b;
    case "gte":
      return a >= b;
  }
}

function vectorOf(type: A.DataType, values: (number | bigint | null)[]): A.Vector {
  return A.vectorFromArray(values, type);
}

export function describeNumericEdges(name: string, target: StorageTarget) {
  describe(`NaN, ±Infinity and -0 through stats and filters: ${name}`, () => {
    it("stores exact bounds and filters every numeric type correctly from a fresh instance", async () => {
      const location = await target.fresh();
      const schema = new A.Schema(CASES.map((c) => new A.Field(c.name, c.type, true)));
      const Ns = ava.defineNamespace({ name: "edges", tables: { nums: ava.table({ schema }) } });
      const ns = await Ns.open({ storage: location.open() });
      await ns.push();
      const fileCount = Math.max(...CASES.map((c) => c.files.length));
      const all: Record<string, (number | bigint | null)[]> = {};
      for (let f = 0; f < fileCount; f++) {
        const length = Math.max(...CASES.map((c) => c.files[f]?.length ?? 0));
        const columns: Record<string, A.Vector> = {};
        for (const c of CASES) {
          const values = Array.from({ length }, (_, i) => c.files[f]?.[i] ?? null);
          columns[c.name] = vectorOf(c.type, values);
          all[c.name] = [...(all[c.name] ?? []), ...values];
        }
        await ns.nums.append(new A.Table(columns));
      }

      const fresh = await Ns.open({ storage: location.open() });
      const history = await fresh.nums.history();
      const specials = history[0]!.addedFiles[0]!.stats;
      for (const c of ["Float32", "Float64"]) {
        const s = specials[c]!;
        expect(s.min, `${c} min`).not.toBeNull();
        expect(s.max, `${c} max`).not.toBeNull();
      }

      // Catalogs written before ±Infinity was tagged hold null bounds: such a file is never pruned.
      const legacy = { nullCount: 0, min: null, max: null } as unknown as ava.ColumnStats;
      const f64 = bindPredicate(ava.where.gt("Float64", 0), schema, "edges.nums");
      expect(mayMatch(f64, { Float64: legacy }, 3)).toBe(true);

      for (const c of CASES) {
        const values = all[c.name]!;
        for (const probe of c.probes) {
          for (const op of OPS) {
            const rows = await fresh.nums
              .scan({ filter: (w) => w[op](c.name, probe as number), columns: [c.name] })
              .toArrow();
            const got = Array.from(rows.getChild(c.name)!, (v: unknown) => String(Object.is(v, -0) ? 0 : v));
            const want = values
              .filter((v): v is number | bigint => v !== null && holds(op, v, probe))
              .map((v) => String(Object.is(v, -0) ? 0 : v));
            expect([...got].sort(), `${c.name} ${op} ${String(probe)}`).toEqual(want.sort());
          }
        }
      }
    });
  });
}
