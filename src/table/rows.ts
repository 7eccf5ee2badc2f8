// Arrow rows -> plain JS objects (Dates, numbers or bigints, nested objects, arrays, parsed JSON), and
// objects -> validated models for model tables.
import type * as A from "apache-arrow";
import type { z } from "zod";
import { AvaError } from "../errors.js";
import { fieldCodec } from "../schema/codec.js";
import { PROVENANCE_PREFIX } from "../schema/provenance.js";
import { nullsToUndefined } from "../schema/zod-nulls.js";

export function toObjects(table: A.Table): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = Array.from({ length: table.numRows }, () => ({}));
  table.schema.fields.forEach((field, index) => {
    const codec = fieldCodec(field);
    const vector = table.getChildAt(index)!;
    for (let i = 0; i < rows.length; i++) rows[i]![field.name] = codec.decode(vector.get(i));
  });
  return rows;
}

export function toModels<Row>(
  objects: readonly Record<string, unknown>[],
  zod: z.ZodObject | undefined,
  identifier: string,
): Row[] {
  if (!zod) {
    throw new AvaError(
      "INVALID_ARGUMENT",
      `table ${identifier} is declared with an Arrow schema and has no model to validate against`,
    );
  }
  return objects.map((row, i) => {
    const parsed = zod.safeParse(nullsToUndefined(userColumns(row), zod));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new AvaError(
        "SCHEMA_MISMATCH",
        `table ${identifier}: row ${i} is not a valid model at "${issue.path.map(String).join(".")}": ${issue.message}`,
      );
    }
    return parsed.data as Row;
  });
}

/** A row without its `_ava_*` provenance columns: models describe the user's columns only (a strict model
 * would refuse the others as unknown keys). */
function userColumns(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in row) if (!key.startsWith(PROVENANCE_PREFIX)) out[key] = row[key];
  return out;
}
