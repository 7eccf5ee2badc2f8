// What `enqueue` accepts, checked and classified before anything is buffered: timestamps (bigint epoch ns,
// Date, or a number with a declared unit) and values (double, long, string, double array, string array,
// JSON struct). Booleans, null, NaN inside a JSON struct and mixed batches are refused with AvaErrors.
import { AvaError, describeValue } from "../errors.js";
import type { AvroValue } from "./record.js";
import type { ValueKind } from "./schema.js";
import { jsonValueProblem } from "../util/json-value.js";

export type TimestampUnit = "ns" | "us" | "ms" | "s";
export type Timestamp = bigint | Date | number;
export type StreamValue =
  | number
  | bigint
  | string
  | readonly number[]
  | Float64Array
  | readonly string[]
  | Record<string, unknown>;

const NS_PER: Record<TimestampUnit, bigint> = { ns: 1n, us: 1_000n, ms: 1_000_000n, s: 1_000_000_000n };
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function refuse(detail: string): never {
  throw new AvaError("INVALID_ARGUMENT", `${detail}; nothing of this call was enqueued`);
}

export function toNanos(t: Timestamp, unit: TimestampUnit | undefined, where: string): bigint {
  let ns: bigint;
  if (typeof t === "bigint") ns = t;
  else if (t instanceof Date) {
    const ms = t.getTime();
    if (Number.isNaN(ms)) refuse(`${where}: invalid Date`);
    ns = BigInt(ms) * NS_PER.ms;
  } else if (typeof t === "number") {
    if (!unit)
      refuse(
        `${where}: a plain number cannot hold epoch nanoseconds exactly; pass a bigint or a Date, or set timestampUnit`,
      );
    if (!Number.isFinite(t)) refuse(`${where}: timestamp ${t} is not finite`);
    const whole = Math.trunc(t);
    ns = BigInt(whole) * NS_PER[unit] + BigInt(Math.round((t - whole) * Number(NS_PER[unit])));
  } else return refuse(`${where}: timestamp ${describeValue(t)} is not a bigint, Date or number`);
  if (ns < INT64_MIN || ns > INT64_MAX) refuse(`${where}: timestamp ${ns} is outside 64 bits`);
  return ns;
}

/** The value as Avro sees it; refuses what has no Avro stream type. */
export function classify(v: unknown, where: string): AvroValue {
  if (typeof v === "number") return { kind: "double", value: v };
  if (typeof v === "bigint") {
    if (v < INT64_MIN || v > INT64_MAX) refuse(`${where}: ${v} is outside 64 bits`);
    return { kind: "long", value: v };
  }
  if (typeof v === "string") return { kind: "string", value: v };
  if (v instanceof Float64Array) return { kind: "doubleArray", value: v };
  if (Array.isArray(v)) {
    if (v.every((x) => typeof x === "number")) return { kind: "doubleArray", value: Float64Array.from(v) };
    if (v.every((x) => typeof x === "string")) return { kind: "stringArray", value: [...v] };
    return refuse(`${where}: an array must hold only numbers or only strings`);
  }
  if (v === null || v === undefined)
    return refuse(`${where}: ${v} is not a value (use NaN to mark a missing double)`);
  if (typeof v === "boolean")
    return refuse(`${where}: booleans have no Avro stream type; convert to a double or a string`);
  if (typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
    const problem = jsonValueProblem(v, { allowNonFinite: false });
    if (problem) return refuse(`${where}: a JSON struct cannot be stored: ${problem}`);
    return { kind: "json", value: JSON.stringify(v) };
  }
  return refuse(`${where}: ${describeValue(v)} has no Avro stream type`);
}

export function kindName(kind: ValueKind): string {
  return {
    double: "double",
    long: "long",
    string: "string",
    doubleArray: "double array",
    stringArray: "string array",
    json: "JSON struct",
  }[kind];
}

export function checkTags(tags: unknown, where: string): Record<string, string> {
  if (tags === undefined) return {};
  if (typeof tags !== "object" || tags === null || Array.isArray(tags))
    refuse(`${where}: tags must be an object of strings`);
  for (const [k, v] of Object.entries(tags))
    if (typeof v !== "string") refuse(`${where}: tag ${JSON.stringify(k)} is not a string`);
  return tags as Record<string, string>;
}
