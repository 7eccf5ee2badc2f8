// `ava.json()`: a model field stored as a JSON string column (Avalanche's `Annotated[..., ava.Json]`).
import { z } from "zod";

const marked = new WeakSet<object>();

/** Marks a zod schema (default: any JSON value) to be stored as JSON text. */
export function json<T extends z.ZodType = z.ZodJSONSchema>(inner?: T): T {
  const schema = (inner ?? z.json()) as T;
  marked.add(schema);
  return schema;
}

export function isJsonMarked(schema: object): boolean {
  return marked.has(schema);
}
