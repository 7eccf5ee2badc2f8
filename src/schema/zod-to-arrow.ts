// zod object -> Arrow schema, as a lookup table keyed by zod's type name (zod v4's own `toJSONSchema` is
// the template). What has no single Arrow type (unions of several types, records, any, functions…) is
// refused with the field's path.
import * as A from "apache-arrow";
import type { z } from "zod";
import { AvaError } from "../errors.js";
import { isJsonMarked } from "./json.js";
import { AVA_JS, AVA_TYPE, fieldMeta } from "./metadata.js";

interface ZodInternals {
  _zod: {
    def: {
      type: string;
      innerType?: z.ZodType;
      element?: z.ZodType;
      shape?: Record<string, z.ZodType>;
      entries?: Record<string, string | number>;
      values?: unknown[];
    };
  };
  isInt?: boolean;
}

interface Mapped {
  type: A.DataType;
  nullable: boolean;
  metadata?: Map<string, string>;
}

type Handler = (schema: ZodInternals, path: string) => Mapped;

const scalar =
  (make: () => A.DataType): Handler =>
  () => ({ type: make(), nullable: false });

const HANDLERS: Record<string, Handler> = {
  string: scalar(() => new A.Utf8()),
  boolean: scalar(() => new A.Bool()),
  bigint: scalar(() => new A.Int64()),
  date: scalar(() => new A.TimestampMicrosecond("UTC")),
  number: (s) =>
    s.isInt
      ? { type: new A.Int64(), nullable: false, metadata: fieldMeta({ [AVA_JS]: "number" }) }
      : { type: new A.Float64(), nullable: false },
  enum: (s, path) => {
    const values = Object.values(s._zod.def.entries ?? {});
    if (!values.every((v) => typeof v === "string")) unsupported(path, "an enum of non-string values");
    return { type: new A.Dictionary(new A.Utf8(), new A.Int32()), nullable: false };
  },
  literal: (s, path) => {
    const values = s._zod.def.values ?? [];
    if (values.every((v) => typeof v === "string")) return { type: new A.Utf8(), nullable: false };
    if (values.every((v) => typeof v === "boolean")) return { type: new A.Bool(), nullable: false };
    if (values.every((v) => typeof v === "number")) return { type: new A.Float64(), nullable: false };
    return unsupported(path, "a literal of mixed types");
  },
  optional: (s, path) => ({ ...mapZod(s._zod.def.innerType!, path), nullable: true }),
  nullable: (s, path) => ({ ...mapZod(s._zod.def.innerType!, path), nullable: true }),
  // A default fills a missing input, so the stored column is as nullable as the inner type.
  default: (s, path) => mapZod(s._zod.def.innerType!, path),
  prefault: (s, path) => mapZod(s._zod.def.innerType!, path),
  readonly: (s, path) => mapZod(s._zod.def.innerType!, path),
  object: (s, path) => ({ type: new A.Struct(objectFields(s, path)), nullable: false }),
  array: (s, path) => {
    const item = mapZod(s._zod.def.element!, `${path}[]`);
    return {
      type: new A.List(new A.Field("item", item.type, item.nullable, item.metadata)),
      nullable: false,
    };
  },
};

const ZOD4 =
  'avalanche-web needs zod 4 (npm install zod@4, then import { z } from "zod"; zod 3.25 has it as "zod/v4")';

/** zod 3 schemas (no `_zod`) name their class in `_def.typeName`: "ZodObject", "ZodString", … */
function zod3TypeName(schema: unknown): string | undefined {
  const name = (schema as { _def?: { typeName?: unknown } } | null)?._def?.typeName;
  return typeof name === "string" && name.startsWith("Zod") ? name : undefined;
}

function unsupported(path: string, what: string): never {
  throw new AvaError(
    "UNSUPPORTED_TYPE",
    `field "${path}" is ${what}, which has no column type; use one type per field, or ava.json() to store it as JSON`,
  );
}

function mapZod(schema: z.ZodType, path: string): Mapped {
  if (isJsonMarked(schema))
    return { type: new A.Utf8(), nullable: false, metadata: fieldMeta({ [AVA_TYPE]: "json" }) };
  const internals = schema as unknown as ZodInternals;
  const kind = internals._zod?.def?.type;
  const handler = kind === undefined ? undefined : HANDLERS[kind];
  if (!handler) {
    const zod3 = zod3TypeName(schema);
    if (zod3) return unsupported(path, `a zod 3 schema (${zod3}): ${ZOD4}`);
    return unsupported(path, kind === undefined ? "not a zod schema" : `a zod ${kind}`);
  }
  return handler(internals, path);
}

function objectFields(schema: ZodInternals, prefix: string): A.Field[] {
  const shape = schema._zod.def.shape ?? {};
  return Object.entries(shape).map(([name, field]) => {
    const path = prefix ? `${prefix}.${name}` : name;
    const m = mapZod(field, path);
    return new A.Field(name, m.type, m.nullable, m.metadata);
  });
}

/** The Arrow schema of a zod object's rows. */
export function zodToArrow(schema: z.ZodObject): A.Schema {
  const internals = schema as unknown as ZodInternals;
  if (internals._zod?.def?.type !== "object") {
    const zod3 = zod3TypeName(schema);
    throw new AvaError(
      "UNSUPPORTED_TYPE",
      zod3
        ? `a table's zod schema must be a zod 4 z.object({...}); this is a zod 3 schema (${zod3}): ${ZOD4}`
        : "a table's zod schema must be a zod 4 z.object({...})",
    );
  }
  return new A.Schema(objectFields(internals, ""));
}
