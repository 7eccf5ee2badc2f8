// Columns store a missing optional value as null; a zod `.optional()` field wants undefined back. This
// walks a decoded row beside its zod schema and turns such nulls into absent keys, at any depth.
import type { z } from "zod";

interface Def {
  type: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
}

const def = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

function unwrap(s: z.ZodType): { inner: z.ZodType; acceptsNull: boolean; optional: boolean } {
  let inner = s;
  let acceptsNull = false;
  let optional = false;
  for (;;) {
    const d = def(inner);
    if (d.type === "nullable") acceptsNull = true;
    else if (d.type === "optional" || d.type === "default" || d.type === "prefault") optional = true;
    else if (d.type !== "readonly") return { inner, acceptsNull, optional };
    inner = d.innerType!;
  }
}

export function nullsToUndefined(value: unknown, schema: z.ZodType): unknown {
  if (value === null || value === undefined) return value;
  const d = def(schema);
  if (d.type === "object" && typeof value === "object" && !Array.isArray(value)) {
    const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    for (const [key, field] of Object.entries(d.shape ?? {})) {
      const { inner, acceptsNull, optional } = unwrap(field);
      if (out[key] === null && optional && !acceptsNull) delete out[key];
      else out[key] = nullsToUndefined(out[key], inner);
    }
    return out;
  }
  if (d.type === "array" && Array.isArray(value))
    return value.map((v) => nullsToUndefined(v, unwrap(d.element!).inner));
  if (d.type !== "object" && d.type !== "array" && d.innerType)
    return nullsToUndefined(value, unwrap(schema).inner);
  return value;
}
