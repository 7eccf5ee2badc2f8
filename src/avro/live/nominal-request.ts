// A batch of Avro stream records as Nominal's live write request: protobuf `WriteRequestNominal`
// (package io.nominal.scout.api.proto, from nominal-streaming), one Series per record and value kind.
// Field numbers (see shared/reference/nominal-live-write.md):
//   WriteRequestNominal { 1: repeated Series }
//   Series { 1: Channel { 1: name }, 2: map<string,string> tags, 3: Points }
//   Points { oneof 1: DoublePoints, 2: StringPoints, 3: IntegerPoints, 4: DoubleArrayPoints, 5: StringArrayPoints }
//   …Points { 1: repeated …Point };  …Point { 1: google.protobuf.Timestamp, 2: value }
//   Timestamp { 1: int64 seconds, 2: int32 nanos }
// The live request has no JSON struct type: a JSON point is refused with the channel it came on.
import { AvaError } from "../../errors.js";
import type { AvroStreamRecord, AvroValue, RecordValues } from "../record.js";
import { ProtoWriter } from "./proto-writer.js";

const POINTS_FIELD = { double: 1, string: 2, long: 3, doubleArray: 4, stringArray: 5 } as const;
type Kind = keyof typeof POINTS_FIELD;

const NS_PER_S = 1_000_000_000n;

function timestamp(w: ProtoWriter, ns: bigint): void {
  let seconds = ns / NS_PER_S;
  let nanos = ns - seconds * NS_PER_S;
  if (nanos < 0n) {
    // Timestamp's nanos are never negative: 1 ns before the epoch is -1 s + 999,999,999 ns.
    seconds -= 1n;
    nanos += NS_PER_S;
  }
  w.message(1, (t) => {
    if (seconds !== 0n) t.int64(1, seconds);
    if (nanos !== 0n) t.int32(2, Number(nanos));
  });
}

function writeValue(w: ProtoWriter, kind: Kind, value: AvroValue["value"]): void {
  if (kind === "double") w.double(2, value as number);
  else if (kind === "long") w.int64(2, value as bigint);
  else if (kind === "string") w.string(2, value as string);
  else if (kind === "doubleArray") w.packedDoubles(2, value as Float64Array);
  else for (const s of value as string[]) w.string(2, s);
}

/** A record's points grouped by kind (a record of one kind, the usual case, is one group). */
function groups(values: RecordValues): Map<Kind, number[]> | Kind {
  if (values.kind !== "mixed") return values.kind as Kind;
  const byKind = new Map<Kind, number[]>();
  values.values.forEach((v, i) => {
    const list = byKind.get(v.kind as Kind) ?? [];
    list.push(i);
    byKind.set(v.kind as Kind, list);
  });
  return byKind;
}

function refuseJson(channel: string): never {
  throw new AvaError(
    "INVALID_ARGUMENT",
    `channel ${JSON.stringify(channel)} has JSON points, which Nominal's live write request cannot carry; send them with the "avro" transport or as strings`,
  );
}

export function encodeWriteRequest(records: readonly AvroStreamRecord[]): Uint8Array {
  const request = new ProtoWriter();
  for (const record of records) {
    const grouped = groups(record.values);
    const indices: [Kind, number[] | undefined][] =
      typeof grouped === "string" ? [[grouped, undefined]] : [...grouped];
    for (const [kind, only] of indices) {
      if ((kind as string) === "json") refuseJson(record.channel);
      request.message(1, (series) => {
        series.message(1, (channel) => channel.string(1, record.channel));
        for (const [key, value] of Object.entries(record.tags))
          series.message(2, (entry) => {
            entry.string(1, key);
            entry.string(2, value);
          });
        series.message(3, (points) =>
          points.message(POINTS_FIELD[kind], (list) => {
            const count = only?.length ?? record.timestamps.length;
            for (let n = 0; n < count; n++) {
              const i = only ? only[n]! : n;
              const value =
                record.values.kind === "mixed"
                  ? record.values.values[i]!.value
                  : (record.values.values as ArrayLike<unknown>)[i];
              list.message(1, (point) => {
                timestamp(point, record.timestamps[i]!);
                writeValue(point, kind, value as AvroValue["value"]);
              });
            }
          }),
        );
      });
    }
  }
  return request.finish();
}
