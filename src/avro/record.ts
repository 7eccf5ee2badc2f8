// One io.nominal.ingest.AvroStream record <-> bytes. Values of one kind decode straight into typed arrays
// (Float64Array, BigInt64Array); a record whose values mix kinds (valid Avro, if not what Nominal writes)
// keeps them as tagged values. Lengths are checked: timestamps and values must pair up.
import { TypedArena } from "./arena.js";
import type { ByteReader, ByteWriter } from "./binary.js";
import type { ValueKind } from "./schema.js";

export type AvroValue =
  | { kind: "double"; value: number }
  | { kind: "long"; value: bigint }
  | { kind: "string" | "json"; value: string }
  | { kind: "doubleArray"; value: Float64Array }
  | { kind: "stringArray"; value: string[] };

export type RecordValues =
  | { kind: "double"; values: Float64Array }
  | { kind: "long"; values: BigInt64Array }
  | { kind: "string" | "json"; values: string[] }
  | { kind: "doubleArray"; values: Float64Array[] }
  | { kind: "stringArray"; values: string[][] }
  | { kind: "mixed"; values: AvroValue[] };

export interface AvroStreamRecord {
  channel: string;
  /** Epoch nanoseconds (or whatever unit the writer chose), parallel to `values`. */
  timestamps: BigInt64Array;
  values: RecordValues;
  tags: Record<string, string>;
}

export function valueCount(v: RecordValues): number {
  return v.values.length;
}

function readLongs(r: ByteReader, what: string, arena: TypedArena): BigInt64Array {
  let out: BigInt64Array = new BigInt64Array(0);
  for (let n = r.blockCount(what, 1); n > 0; n = r.blockCount(what, 1)) {
    const start = out.length;
    const grown = arena.longs(start + n); // one block, the usual case: no copy
    grown.set(out);
    out = grown;
    r.longsInto(new Int32Array(out.buffer, out.byteOffset, out.length * 2), start, n);
  }
  return out;
}

function readDoubles(r: ByteReader, what: string): Float64Array {
  const parts: Float64Array[] = [];
  for (let n = r.blockCount(what, 8); n > 0; n = r.blockCount(what, 8)) {
    const part = new Float64Array(n);
    for (let i = 0; i < n; i++) part[i] = r.double();
    parts.push(part);
  }
  if (parts.length === 1) return parts[0]!;
  const out = new Float64Array(parts.reduce((a, p) => a + p.length, 0));
  parts.reduce((at, p) => {
    out.set(p, at);
    return at + p.length;
  }, 0);
  return out;
}

function readStrings(r: ByteReader, what: string): string[] {
  const out: string[] = [];
  for (let n = r.blockCount(what, 1); n > 0; n = r.blockCount(what, 1))
    for (let i = 0; i < n; i++) out.push(r.string(what));
  return out;
}

function readValue(r: ByteReader, kind: ValueKind): AvroValue {
  switch (kind) {
    case "double":
      return { kind, value: r.double() };
    case "long":
      return { kind, value: r.longBig() };
    case "string":
    case "json":
      return { kind, value: r.string(kind === "json" ? "JsonStruct.json" : "string value") };
    case "doubleArray":
      return { kind, value: readDoubles(r, "DoubleArray.items") };
    case "stringArray":
      return { kind, value: readStrings(r, "StringArray.items") };
  }
}

/** Packs values of one kind into the typed representation. */
function pack(items: AvroValue[]): RecordValues {
  const kind = items[0]?.kind ?? "double";
  if (!items.every((v) => v.kind === kind)) return { kind: "mixed", values: items };
  switch (kind) {
    case "double":
      return { kind, values: Float64Array.from(items, (v) => v.value as number) };
    case "long":
      return { kind, values: BigInt64Array.from(items, (v) => v.value as bigint) };
    case "string":
    case "json":
      return { kind, values: items.map((v) => v.value as string) };
    case "doubleArray":
      return { kind, values: items.map((v) => v.value as Float64Array) };
    case "stringArray":
      return { kind, values: items.map((v) => v.value as string[]) };
  }
}

function readValues(r: ByteReader, branches: readonly ValueKind[], arena: TypedArena): RecordValues {
  // Fast path: doubles, the common case, go straight into a Float64Array.
  const items: AvroValue[] = [];
  let doubles: Float64Array | undefined;
  let nDoubles = 0;
  const doubleBranch = branches.indexOf("double"); // < 64, so its zigzag varint is the one byte 2 * index
  for (let n = r.blockCount("values", 1); n > 0; n = r.blockCount("values", 1)) {
    for (let i = 0; i < n; i++) {
      if (doubleBranch >= 0 && items.length === 0) {
        if (!doubles || nDoubles + (n - i) > doubles.length) {
          const grown = arena.doubles(nDoubles + (n - i));
          if (doubles) grown.set(doubles.subarray(0, nDoubles));
          doubles = grown;
        }
        const got = r.branchedDoublesInto(doubles, nDoubles, n - i, doubleBranch * 2);
        nDoubles += got;
        i += got;
        if (i === n) break;
      }
      const at = r.pos;
      r.longWords();
      const branch = r.lo;
      if (r.hi !== 0 || branch < 0 || branch >= branches.length) {
        throw r.corrupt(`value union branch ${branch} is outside the schema's ${branches.length}`, at);
      }
      const kind = branches[branch]!;
      if (kind === "double" && items.length === 0) {
        // A double the fast path left (near the end of the bytes, where double() reports truncation); the
        // fast path above already made room for the rest of this block.
        doubles![nDoubles++] = r.double();
        continue;
      }
      if (doubles && items.length === 0) {
        for (let j = 0; j < nDoubles; j++) items.push({ kind: "double", value: doubles[j]! });
        doubles = undefined;
      }
      items.push(readValue(r, kind));
    }
  }
  if (doubles) return { kind: "double", values: doubles.subarray(0, nDoubles) };
  return pack(items);
}

function readTags(r: ByteReader): Record<string, string> {
  const tags: Record<string, string> = {};
  for (let n = r.blockCount("tags", 2); n > 0; n = r.blockCount("tags", 2)) {
    for (let i = 0; i < n; i++) {
      const key = r.string("tag key");
      tags[key] = r.string("tag value");
    }
  }
  return tags;
}

export function readRecord(
  r: ByteReader,
  branches: readonly ValueKind[],
  arena: TypedArena = new TypedArena(),
): AvroStreamRecord {
  const start = r.pos;
  const channel = r.string("channel");
  const timestamps = readLongs(r, "timestamps", arena);
  const values = readValues(r, branches, arena);
  const tags = readTags(r);
  if (timestamps.length !== valueCount(values)) {
    throw r.corrupt(
      `record of channel ${JSON.stringify(channel)} has ${timestamps.length} timestamps but ${valueCount(values)} values`,
      start,
    );
  }
  return { channel, timestamps, values, tags };
}

function writeValue(w: ByteWriter, v: AvroValue, branch: number): void {
  w.long(branch);
  if (v.kind === "double") w.double(v.value);
  else if (v.kind === "long") w.long(v.value);
  else if (v.kind === "string" || v.kind === "json") w.string(v.value);
  else {
    // DoubleArray / StringArray records: one array block, then the end marker.
    if (v.value.length > 0) {
      w.long(v.value.length);
      if (v.kind === "doubleArray") for (const x of v.value) w.double(x);
      else for (const x of v.value) w.string(x);
    }
    w.long(0);
  }
}

export function writeRecord(
  w: ByteWriter,
  rec: AvroStreamRecord,
  branchOf: (kind: ValueKind) => number,
): void {
  w.string(rec.channel);
  const n = rec.timestamps.length;
  if (n > 0) {
    w.long(n);
    w.longsFromWords(new Int32Array(rec.timestamps.buffer, rec.timestamps.byteOffset, n * 2), n);
  }
  w.long(0);
  const count = valueCount(rec.values);
  if (count > 0) {
    w.long(count);
    const v = rec.values;
    if (v.kind === "double") {
      w.branchedDoubles(branchOf("double"), v.values);
    } else if (v.kind === "mixed") {
      for (const item of v.values) writeValue(w, item, branchOf(item.kind));
    } else {
      const branch = branchOf(v.kind);
      for (const x of v.values as Iterable<unknown>)
        writeValue(w, { kind: v.kind, value: x } as AvroValue, branch);
    }
  }
  w.long(0);
  const tags = Object.entries(rec.tags);
  if (tags.length > 0) {
    w.long(tags.length);
    for (const [k, val] of tags) {
      w.string(k);
      w.string(val);
    }
  }
  w.long(0);
}
