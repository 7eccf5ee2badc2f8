// The Avro bench records: 10M double points, 1,000 a record, 100 channels, shared by Node and Chromium.
import type { AvroStreamRecord } from "../src/avro.js";

export const POINTS_PER_RECORD = 1000;
export const CHANNELS = 100;
export const RECORDS = 10_000;
export const POINTS = POINTS_PER_RECORD * RECORDS;

export function avroRecords(): AvroStreamRecord[] {
  return Array.from({ length: RECORDS }, (_, r) => ({
    channel: `channel_${r % CHANNELS}`,
    timestamps: BigInt64Array.from(
      { length: POINTS_PER_RECORD },
      (_, i) => 1_757_500_000_000_000_000n + BigInt(r * POINTS_PER_RECORD + i),
    ),
    values: {
      kind: "double" as const,
      values: Float64Array.from({ length: POINTS_PER_RECORD }, (_, i) => Math.sin(r + i / 100)),
    },
    tags: { vehicle: "sn-001" },
  }));
}
