// Appended data -> an Arrow table of exactly the table's user schema, or a SCHEMA_MISMATCH naming table,
// column and first bad row. Nothing is written before this has passed for the whole input.
import * as A from "apache-arrow";
import type { z } from "zod";
import { AvaError } from "../errors.js";
import { castData } from "./cast.js";
import { fieldCodec, ValueIssue } from "./codec.js";
import { jsonValueProblem } from "../util/json-value.js";
import { recordBatch } from "../util/record-batch.js";
import { AVA_TYPE } from "./metadata.js";
import { isProvenanceColumn } from "./provenance.js";

export interface CoerceTarget {
  /** "namespace.table", for messages. */
  identifier: string;
  schema: A.Schema;
  zod?: z.ZodObject | undefined;
}

export function isArrowTable(x: unknown): x is A.Table {
  return x instanceof A.Table || (typeof x === "object" && x !== null && "batches" in x && "schema" in x);
}

export function isRecordBatch(x: unknown): x is A.RecordBatch {
  return (
    x instanceof A.RecordBatch ||
    (typeof x === "object" && x !== null && "schema" in x && "data" in x && "numRows" in x)
  );
}

function mismatch(target: CoerceTarget, detail: string): AvaError {
  return new AvaError("SCHEMA_MISMATCH", `table ${target.identifier}: ${detail}; nothing was written`);
}

export function coerceInput(input: unknown, target: CoerceTarget): A.Table {
  if (isArrowTable(input)) return coerceArrow(input.batches, target);
  if (isRecordBatch(input)) return coerceArrow([input], target);
  if (Array.isArray(input)) return coerceObjects(input, target);
  if (typeof input === "object" && input !== null) return coerceObjects([input], target);
  throw mismatch(
    target,
    `cannot append ${input === null ? "null" : typeof input}: pass an Arrow Table, a RecordBatch, objects or models`,
  );
}

function coerceArrow(batches: readonly A.RecordBatch[], target: CoerceTarget): A.Table {
  const first = batches[0];
  if (first) {
    for (const f of first.schema.fields) {
      if (!isProvenanceColumn(f.name) && !target.schema.fields.some((t) => t.name === f.name)) {
        throw mismatch(target, `column "${f.name}" is not in the table's schema`);
      }
    }
  }
  let rowBase = 0;
  const out = batches.map((batch) => {
    const children = target.schema.fields.map((field) => {
      const index = batch.schema.fields.findIndex((f) => f.name === field.name);
      if (index < 0) throw mismatch(target, `column "${field.name}" is missing`);
      const data = batch.data.children[index]!;
      const cast = castData(data, field.type);
      if (!cast) throw mismatch(target, `column "${field.name}": expected ${field.type}, got ${data.type}`);
      if (!field.nullable && cast.nullCount > 0) {
        const v = A.makeVector(cast);
        let row = 0;
        while (v.isValid(row)) row++;
        throw mismatch(target, `column "${field.name}" row ${rowBase + row}: null in a non-nullable column`);
      }
      return cast;
    });
    rowBase += batch.numRows;
    const struct = A.makeData({
      type: new A.Struct(target.schema.fields),
      length: batch.numRows,
      nullCount: 0,
      children,
    });
    return recordBatch(target.schema, struct);
  });
  return new A.Table(target.schema, out);
}

function coerceObjects(rows: readonly unknown[], target: CoerceTarget): A.Table {
  const fields = target.schema.fields;
  const codecs = fields.map(fieldCodec);
  const builders = fields.map((f) => A.makeBuilder({ type: f.type, nullValues: [null, undefined] }));
  const known = new Set(fields.map((f) => f.name));
  const jsonFields = fields.filter((f) => f.metadata.get(AVA_TYPE) === "json").map((f) => f.name);
  rows.forEach((raw, row) => {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      throw mismatch(target, `row ${row}: expected an object, got ${raw === null ? "null" : typeof raw}`);
    }
    let value = raw as Record<string, unknown>;
    // zod objects strip unknown keys; a column the table does not have must be refused, not dropped.
    for (const key of Object.keys(value)) {
      if (!known.has(key) && !isProvenanceColumn(key))
        throw mismatch(target, `row ${row}: column "${key}" is not in the table's schema`);
    }
    if (target.zod) {
      // zod recurses into JSON values: check them first, so a cycle or 100k levels is an error, not a crash.
      for (const f of jsonFields) {
        const problem = jsonValueProblem(value[f]);
        if (problem) throw mismatch(target, `column "${f}" row ${row}: cannot be stored as JSON: ${problem}`);
      }
      let parsed: ReturnType<z.ZodObject["safeParse"]>;
      try {
        parsed = target.zod.safeParse(value);
      } catch (cause) {
        throw mismatch(target, `row ${row}: the model cannot be validated (${String(cause)})`);
      }
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const column = issue.path.length ? issue.path.map(String).join(".") : "(row)";
        throw mismatch(target, `column "${column}" row ${row}: ${issue.message}`);
      }
      value = parsed.data as Record<string, unknown>;
    }
    fields.forEach((field, i) => {
      let encoded: unknown;
      try {
        encoded = codecs[i]!.encode(value[field.name]);
      } catch (e) {
        if (!(e instanceof ValueIssue)) throw e;
        const what = field.name in value || !e.message.startsWith("null") ? e.message : "missing";
        throw mismatch(target, `column "${field.name}${e.path}" row ${row}: ${what}`);
      }
      builders[i]!.append(encoded);
    });
  });
  const children = builders.map((b) => b.finish().flush());
  const struct = A.makeData({ type: new A.Struct(fields), length: rows.length, nullCount: 0, children });
  return new A.Table(target.schema, [recordBatch(target.schema, struct)]);
}
