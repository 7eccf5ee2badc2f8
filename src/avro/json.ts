// Avro's JSON encoding of AvroStream records, as `avro cat` prints and `avro write` reads them: unions as
// {"double": 1.5}, {"io.nominal.ingest.DoubleArray": {"items": [...]}}, …; 64-bit integers printed exactly;
// NaN and ±Infinity as the strings "NaN", "Infinity", "-Infinity".
import { AvaError } from "../errors.js";
import type { AvroStreamRecord, AvroValue } from "./record.js";
import type { ValueKind } from "./schema.js";

const UNION_NAME: Record<ValueKind, string> = {
  double: "double",
  long: "long",
  string: "string",
  doubleArray: "io.nominal.ingest.DoubleArray",
  stringArray: "io.nominal.ingest.StringArray",
  json: "io.nominal.ingest.JsonStruct",
};
const KIND_OF = Object.fromEntries(Object.entries(UNION_NAME).map(([k, v]) => [v, k as ValueKind]));

const double = (x: number) =>
  Number.isFinite(x) ? (Object.is(x, -0) ? "-0.0" : JSON.stringify(x)) : JSON.stringify(String(x));
const str = (s: string) => JSON.stringify(s);

function valueJson(v: AvroValue): string {
  const name = str(UNION_NAME[v.kind]);
  switch (v.kind) {
    case "double":
      return `{${name}: ${double(v.value)}}`;
    case "long":
      return `{${name}: ${v.value}}`;
    case "string":
      return `{${name}: ${str(v.value)}}`;
    case "json":
      return `{${name}: {"json": ${str(v.value)}}}`;
    case "doubleArray":
      return `{${name}: {"items": [${Array.from(v.value, double).join(", ")}]}}`;
    case "stringArray":
      return `{${name}: {"items": [${v.value.map(str).join(", ")}]}}`;
  }
}

export function recordToJson(r: AvroStreamRecord): string {
  const v = r.values;
  const items =
    v.kind === "mixed"
      ? v.values
      : Array.from(v.values as ArrayLike<unknown>, (value) => ({ kind: v.kind, value }) as AvroValue);
  const tags = Object.entries(r.tags).map(([k, val]) => `${str(k)}: ${str(val)}`);
  return `{"channel": ${str(r.channel)}, "timestamps": [${Array.from(r.timestamps).join(", ")}], "values": [${items.map(valueJson).join(", ")}], "tags": {${tags.join(", ")}}}`;
}

/** Integers are wrapped as {"\u0000int": "123"}: an object no valid record has where numbers stand. */
const INT_KEY = "\u0000int";

/**
 * Wraps every integer token outside string literals, so that JSON.parse keeps 64-bit integers exact (it
 * would round them to doubles); numbers with a fraction or an exponent are left alone.
 */
function quoteIntegers(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === "-" || (c >= "0" && c <= "9")) {
      const m = /^-?\d+(\.\d+)?([eE][-+]?\d+)?/.exec(text.slice(i, i + 40));
      if (!m) {
        out += c; // not a number: JSON.parse will say what is wrong
        i++;
        continue;
      }
      out += m[1] || m[2] ? m[0] : `{"\\u0000int":"${m[0]}"}`;
      i += m[0].length;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Parses one line of Avro JSON; 64-bit integers are read exactly from the text. */
export function recordFromJson(line: string, where: string): AvroStreamRecord {
  let raw: { channel?: unknown; timestamps?: unknown; values?: unknown; tags?: unknown };
  try {
    raw = JSON.parse(quoteIntegers(line));
  } catch (cause) {
    throw new AvaError("INVALID_ARGUMENT", `${where}: not JSON (${(cause as Error).message})`, { cause });
  }
  const bad = (detail: string): never => {
    throw new AvaError("INVALID_ARGUMENT", `${where}: ${detail}`);
  };
  const intText = (x: unknown): string | undefined =>
    typeof x === "object" && x !== null && INT_KEY in x
      ? String((x as Record<string, unknown>)[INT_KEY])
      : undefined;
  const int = (x: unknown): bigint => {
    const text = intText(x);
    return text === undefined ? bad(`${JSON.stringify(x)} is not an integer`) : BigInt(text);
  };
  const num = (x: unknown): number => {
    if (typeof x === "number") return x;
    const text = intText(x);
    if (text !== undefined) return Number(text);
    if (x === "NaN" || x === "Infinity" || x === "-Infinity") return Number(x);
    return bad(`${JSON.stringify(x)} is not a double`);
  };
  const text = (x: unknown, what: string): string =>
    typeof x === "string" ? x : bad(`${what} is not a string`);
  const channel = text(raw.channel, "channel");
  if (!Array.isArray(raw.timestamps) || !Array.isArray(raw.values))
    bad("timestamps and values must be arrays");
  const value = (u: unknown): AvroValue => {
    const entries = typeof u === "object" && u !== null ? Object.entries(u) : [];
    const [name, x] = entries[0] ?? [];
    const kind = entries.length === 1 ? KIND_OF[name!] : undefined;
    const items = (x as { items?: unknown[] } | undefined)?.items;
    switch (kind) {
      case "double":
        return { kind, value: num(x) };
      case "long":
        return { kind, value: int(x) };
      case "string":
        return { kind, value: text(x, "a string value") };
      case "json":
        return { kind, value: text((x as { json?: unknown } | undefined)?.json, "JsonStruct.json") };
      case "doubleArray":
        return { kind, value: Float64Array.from(items ?? bad("DoubleArray needs items"), num) };
      case "stringArray":
        return {
          kind,
          value: (items ?? bad("StringArray needs items")).map((s) => text(s, "a StringArray item")),
        };
      default:
        return bad(`${JSON.stringify(u)} is not a union value such as {"double": 1.5}`);
    }
  };
  const tags = Object.fromEntries(
    Object.entries((raw.tags ?? {}) as object).map(([k, v]) => [k, text(v, `tag ${k}`)]),
  );
  return {
    channel,
    timestamps: BigInt64Array.from(raw.timestamps as unknown[], int),
    values: { kind: "mixed", values: (raw.values as unknown[]).map(value) },
    tags,
  };
}
