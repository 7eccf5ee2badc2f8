// Avro stream records covering every value kind, edge values (NaN, ±Infinity, -0, int64 limits,
// non-ASCII text, empty arrays and records) and a record of mixed kinds.
import type { AvroStreamRecord } from "../../src/avro.js";

const ts = (...xs: (number | bigint)[]) => BigInt64Array.from(xs.map(BigInt));

export const RECORDS: AvroStreamRecord[] = [
  {
    channel: "altitude",
    timestamps: ts(1_757_500_000_000_000_000n, 1_757_500_100_000_000_000n),
    values: { kind: "double", values: Float64Array.of(1250.5, Number.NaN) },
    tags: { vehicle_id: "sn-001" },
  },
  {
    channel: "inf",
    timestamps: ts(-1, 0, 1),
    values: {
      kind: "double",
      values: Float64Array.of(Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0),
    },
    tags: {},
  },
  {
    channel: "count",
    timestamps: ts(9_223_372_036_854_775_807n),
    values: { kind: "long", values: ts(-9_223_372_036_854_775_808n) },
    tags: {},
  },
  {
    channel: "fault_code",
    timestamps: ts(5),
    values: { kind: "string", values: ["E07 ✈ é"] },
    tags: { a: "1", ключ: "значение" },
  },
  {
    channel: "vector",
    timestamps: ts(6, 7),
    values: { kind: "doubleArray", values: [Float64Array.of(1, 2, 3), new Float64Array(0)] },
    tags: {},
  },
  {
    channel: "labels",
    timestamps: ts(8),
    values: { kind: "stringArray", values: [["x", "", "z"]] },
    tags: {},
  },
  { channel: "event", timestamps: ts(9), values: { kind: "json", values: ['{"k":[1,null,"s"]}'] }, tags: {} },
  {
    channel: "mixed",
    timestamps: ts(10, 11),
    values: {
      kind: "mixed",
      values: [
        { kind: "double", value: 1.5 },
        { kind: "string", value: "x" },
      ],
    },
    tags: {},
  },
  { channel: "", timestamps: ts(), values: { kind: "double", values: new Float64Array(0) }, tags: {} },
];
