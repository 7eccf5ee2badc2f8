// Initial defaults: a required column added to a stored table with a zod `.default(v)` reads as `v` in the
// rows written before it existed. The value travels through the catalog as JSON (DefaultValue) and is
// turned back into what the column's Arrow builder takes (the same encoding appends use).
import * as A from "apache-arrow";
import type { z } from "zod";
import type { DefaultValue } from "../storage/catalog/model.js";
import { fieldCodec } from "./codec.js";

interface ZodDef {
  _zod: { def: { type: string; defaultValue?: unknown } };
}

/** The top-level `.default()` values of a zod object that can be stored as an initial default. */
export function zodDefaults(zod: z.ZodObject | undefined): Record<string, DefaultValue> {
  const out: Record<string, DefaultValue> = {};
  for (const [name, field] of Object.entries(zod?.shape ?? {})) {
    const def = (field as unknown as ZodDef)._zod?.def;
    if (def?.type !== "default") continue;
    const v = def.defaultValue;
    if (typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v)))
      out[name] = v;
    else if (typeof v === "bigint") out[name] = { bigint: v.toString() };
    else if (v instanceof Date && !Number.isNaN(v.getTime())) out[name] = { dateMs: v.getTime() };
    // anything else (objects, arrays) has no initial default: adding such a column stays refused
  }
  return out;
}

function decodeDefault(v: DefaultValue): unknown {
  if (typeof v !== "object") return v;
  return "bigint" in v ? BigInt(v.bigint) : new Date(v.dateMs);
}

/** A column of `length` copies of a default value (or of nulls when there is none). */
export function filledColumn(field: A.Field, length: number, value: DefaultValue | undefined): A.Data {
  const builder = A.makeBuilder({ type: field.type, nullValues: [null] });
  // The append path's encoding: a z.int() default is a number, a z.bigint() one a bigint, etc.
  const encoded = value === undefined ? null : fieldCodec(field).encode(decodeDefault(value));
  for (let i = 0; i < length; i++) builder.append(encoded);
  return builder.finish().flush();
}
