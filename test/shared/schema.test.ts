import * as A from "apache-arrow";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as ava from "../../src/index.js";
import { DocumentSchema, expectAvaError } from "./fixtures.js";

const types = (t: ava.TableDeclaration) =>
  Object.fromEntries(t.schema.user.fields.map((f) => [f.name, `${f.type}${f.nullable ? "?" : ""}`]));

describe("zod -> Arrow", () => {
  it("maps every supported zod type to one Arrow type", () => {
    expect(types(ava.table({ schema: DocumentSchema }))).toEqual({
      doc_id: "Utf8",
      title: "Utf8",
      words: "Int64",
      score: "Float64?",
      kind: "Dictionary<Int32, Utf8>",
      tags: "List<Utf8>",
      author: "Struct<{name:Utf8, age:Int64}>",
      meta: "Utf8",
      created: "Timestamp<MICROSECOND, UTC>",
      size: "Int64",
    });
  });

  it("adds the provenance columns to the stored schema unless row lineage is off", () => {
    const withLineage = ava.table({ schema: z.object({ a: z.string() }) });
    expect(withLineage.schema.stored.fields.map((f) => f.name)).toEqual([
      "a",
      "_ava_updated_at",
      "_ava_run_id",
      "_ava_rerun_of",
      "_ava_workflow_name",
      "_ava_node_id",
      "_ava_node_name",
      "_ava_node_slug",
      "_ava_lineage_vector",
      "_ava_ctx_metadata",
    ]);
    const without = ava.table({ schema: z.object({ a: z.string() }), rowLineage: false });
    expect(without.schema.stored.fields.map((f) => f.name)).toEqual(["a"]);
  });

  it.each([
    [
      "a union of several types",
      z.object({ id: z.string(), bad: z.union([z.string(), z.number()]) }),
      /"bad"/,
    ],
    [
      "a record of any",
      z.object({ nested: z.object({ rec: z.record(z.string(), z.any()) }) }),
      /"nested\.rec"/,
    ],
    ["a function", z.object({ f: z.function() }), /"f"/],
    ["an any", z.object({ list: z.array(z.any()) }), /"list\[\]"/],
  ])("refuses %s at definition, naming the field", async (_, schema, field) => {
    await expectAvaError(() => ava.table({ schema: schema as z.ZodObject }), "UNSUPPORTED_TYPE", field);
  });

  it("refuses the reserved _ava_ prefix, in zod and Arrow schemas", async () => {
    await expectAvaError(
      () => ava.table({ schema: z.object({ _ava_run_id: z.string() }) }),
      "INVALID_NAME",
      /_ava_run_id/,
    );
    const arrow = new A.Schema([new A.Field("_ava_x", new A.Utf8())]);
    await expectAvaError(() => ava.table({ schema: arrow }), "INVALID_NAME", /_ava_x/);
  });

  it("refuses Arrow types tables do not support, naming the field", async () => {
    const arrow = new A.Schema([new A.Field("ok", new A.Utf8()), new A.Field("when", new A.DateDay())]);
    await expectAvaError(() => ava.table({ schema: arrow }), "UNSUPPORTED_TYPE", /"when"/);
  });

  it("refuses namespace and table names that could escape a folder", async () => {
    const t = ava.table({ schema: z.object({ a: z.string() }) });
    for (const bad of ["../x", "a/b", "a\\b", "..", "a\u0000b", "a\nb", "", ".hidden", "a.b"]) {
      await expectAvaError(() => ava.defineNamespace({ name: bad, tables: {} }), "INVALID_NAME");
      await expectAvaError(() => ava.defineNamespace({ name: "ok", tables: { [bad]: t } }), "INVALID_NAME");
    }
    await expectAvaError(
      () => ava.defineNamespace({ name: "ok", tables: { push: t } }),
      "INVALID_NAME",
      /reserved/,
    );
  });

  it("exposes bound declarations before any storage", () => {
    const Def = ava.defineNamespace({
      name: "n1",
      tables: { t: ava.table({ schema: z.object({ a: z.string() }) }) },
    });
    expect(Def.tables.t.identifier).toBe("n1.t");
    expect(Def.tables.t.namespace).toBe("n1");
    expect(Def.tables.t.name).toBe("t");
  });
});
