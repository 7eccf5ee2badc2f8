// A table's declared schema, from zod (model-first) or Arrow (dataframe-first), checked once at definition:
// supported types only, no duplicate or reserved (`_ava_`) names.
import * as A from "apache-arrow";
import type { z } from "zod";
import { AvaError, describeValue } from "../errors.js";
import { schemaToJson } from "./arrow-json.js";
import { PROVENANCE_PREFIX, storedSchema } from "./provenance.js";
import { MAX_NESTING, tooDeep, zodToArrow } from "./zod-to-arrow.js";

export type SchemaSource = z.ZodObject | A.Schema;

export interface ResolvedSchema {
  /** The user's columns. */
  user: A.Schema;
  /** The columns stored: user columns plus provenance when row lineage is on. */
  stored: A.Schema;
  /** Present for model tables: validates appends and readModels(). */
  zod: z.ZodObject | undefined;
  /** The user schema as the catalog stores it, serialized: equal fingerprints, same table. */
  fingerprint: string;
}

function isArrowSchema(x: unknown): x is A.Schema {
  return (
    x instanceof A.Schema || (typeof x === "object" && x !== null && "fields" in x && Array.isArray(x.fields))
  );
}

/** Refuses Arrow types nested past MAX_NESTING (stopping there, so a hostile schema cannot overflow the stack). */
function checkNesting(type: A.DataType, path: string, depth: number): void {
  if (depth >= MAX_NESTING) tooDeep(path);
  for (const child of type.children ?? []) checkNesting(child.type, `${path}.${child.name}`, depth + 1);
}

export function resolveSchema(source: SchemaSource, rowLineage: boolean): ResolvedSchema {
  if (typeof source !== "object" || source === null)
    throw new AvaError(
      "INVALID_ARGUMENT",
      `a table's schema must be a z.object({...}) or an Arrow Schema, got ${describeValue(source)}`,
    );
  const user = isArrowSchema(source) ? source : zodToArrow(source);
  if (isArrowSchema(source)) for (const f of user.fields) checkNesting(f.type, f.name, 0);
  const zod = isArrowSchema(source) ? undefined : source;
  const seen = new Set<string>();
  for (const field of user.fields) {
    if (field.name.startsWith(PROVENANCE_PREFIX)) {
      throw new AvaError(
        "INVALID_NAME",
        `field "${field.name}": the "${PROVENANCE_PREFIX}" prefix is reserved for provenance columns`,
      );
    }
    if (seen.has(field.name)) throw new AvaError("INVALID_NAME", `field "${field.name}" appears twice`);
    seen.add(field.name);
  }
  if (user.fields.length === 0) throw new AvaError("INVALID_ARGUMENT", "a table needs at least one column");
  const fingerprint = JSON.stringify(schemaToJson(user)); // throws UNSUPPORTED_TYPE naming the field
  return { user, stored: storedSchema(user, rowLineage), zod, fingerprint };
}
