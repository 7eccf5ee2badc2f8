// Per-field codecs between JS values and Arrow: `encode` checks a value and returns what an Arrow builder
// of the field's type accepts; `decode` turns what an Arrow vector's `get` returns into plain JS (Dates,
// numbers or bigints, objects, arrays, parsed JSON). Both are derived from the Arrow field alone.
import * as A from "apache-arrow";
import { describeValue } from "../errors.js";
import { jsonValueProblem } from "../util/json-value.js";
import { AVA_JS, AVA_TYPE } from "./metadata.js";

/** A value that does not fit; `path` is relative to the column (".a", "[3]"). */
export class ValueIssue {
  constructor(
    readonly message: string,
    readonly path = "",
  ) {}
}

export interface ValueCodec {
  encode(value: unknown): unknown;
  decode(value: unknown): unknown;
}

function fail(expected: string, got: unknown): never {
  throw new ValueIssue(`expected ${expected}, got ${describeValue(got)}`);
}

function intCodec(type: A.Int, asNumber: boolean): ValueCodec {
  const bits = type.bitWidth;
  const min = type.isSigned ? -(2n ** BigInt(bits - 1)) : 0n;
  const max = type.isSigned ? 2n ** BigInt(bits - 1) - 1n : 2n ** BigInt(bits) - 1n;
  const name = `${type.isSigned ? "int" : "uint"}${bits}`;
  return {
    encode(v) {
      let b: bigint;
      if (typeof v === "bigint") b = v;
      else if (typeof v === "number" && Number.isSafeInteger(v)) b = BigInt(v);
      else return fail(`an integer (${name})`, v);
      if (b < min || b > max) throw new ValueIssue(`${b} is out of range for ${name}`);
      return bits === 64 ? b : Number(b);
    },
    decode: (v) => (bits === 64 && asNumber && typeof v === "bigint" ? Number(v) : v),
  };
}

function structCodec(type: A.Struct): ValueCodec {
  const children = type.children.map((f) => ({ name: f.name, codec: fieldCodec(f) }));
  return {
    encode(v) {
      if (typeof v !== "object" || v === null || Array.isArray(v)) return fail("an object", v);
      const out: Record<string, unknown> = {};
      for (const { name, codec } of children) {
        try {
          out[name] = codec.encode((v as Record<string, unknown>)[name]);
        } catch (e) {
          throw e instanceof ValueIssue ? new ValueIssue(e.message, `.${name}${e.path}`) : e;
        }
      }
      return out;
    },
    decode(v) {
      if (v === null || v === undefined) return null;
      const row = v as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const { name, codec } of children) out[name] = codec.decode(row[name]);
      return out;
    },
  };
}

function listCodec(type: A.List): ValueCodec {
  const item = fieldCodec(type.children[0]!);
  return {
    encode(v) {
      if (!Array.isArray(v) && !(ArrayBuffer.isView(v) && !(v instanceof DataView)))
        return fail("an array", v);
      return Array.from(v as ArrayLike<unknown>, (x, i) => {
        try {
          return item.encode(x);
        } catch (e) {
          throw e instanceof ValueIssue ? new ValueIssue(e.message, `[${i}]${e.path}`) : e;
        }
      });
    },
    decode: (v) => (v === null || v === undefined ? null : Array.from(v as Iterable<unknown>, item.decode)),
  };
}

const identity = (v: unknown) => v;

function typeCodec(field: A.Field): ValueCodec {
  const type = field.type;
  if (field.metadata.get(AVA_TYPE) === "json") {
    return {
      encode(v) {
        const problem = jsonValueProblem(v);
        if (problem) throw new ValueIssue(`cannot be stored as JSON: ${problem}`);
        const text = JSON.stringify(v);
        if (text === undefined) return fail("a JSON value", v);
        return text;
      },
      decode: (v) => (typeof v === "string" ? JSON.parse(v) : v),
    };
  }
  if (A.DataType.isUtf8(type) || A.DataType.isDictionary(type)) {
    return { encode: (v) => (typeof v === "string" ? v : fail("a string", v)), decode: identity };
  }
  if (A.DataType.isBool(type)) {
    return { encode: (v) => (typeof v === "boolean" ? v : fail("a boolean", v)), decode: identity };
  }
  if (A.DataType.isFloat(type)) {
    return { encode: (v) => (typeof v === "number" ? v : fail("a number", v)), decode: identity };
  }
  if (A.DataType.isInt(type)) return intCodec(type, field.metadata.get(AVA_JS) === "number");
  if (A.DataType.isTimestamp(type)) {
    return {
      encode: (v) => (v instanceof Date && !Number.isNaN(v.getTime()) ? v : fail("a valid Date", v)),
      decode: (v) => (typeof v === "number" ? new Date(v) : v),
    };
  }
  if (A.DataType.isBinary(type)) {
    return { encode: (v) => (v instanceof Uint8Array ? v : fail("a Uint8Array", v)), decode: identity };
  }
  if (A.DataType.isStruct(type)) return structCodec(type);
  if (A.DataType.isList(type)) return listCodec(type);
  return { encode: (v) => fail(String(type), v), decode: identity };
}

/** The codec of a field, handling nulls by the field's nullability. */
export function fieldCodec(field: A.Field): ValueCodec {
  const inner = typeCodec(field);
  // In a JSON column `null` is a value (the text "null"); only undefined is missing.
  const isJson = field.metadata.get(AVA_TYPE) === "json";
  return {
    encode(v) {
      if (v === undefined || (v === null && !isJson)) {
        if (field.nullable) return null;
        throw new ValueIssue(`null in a non-nullable column`);
      }
      return inner.encode(v);
    },
    decode: (v) => (v === null || v === undefined ? null : inner.decode(v)),
  };
}
