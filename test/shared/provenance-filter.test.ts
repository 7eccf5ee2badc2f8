// Filters on the provenance columns: typed like the table's own columns (`w.eq("_ava_node_slug", "x")`
// type-checks, a number there does not), pruning and filtering as any column does.
import { expect, it } from "vitest";
import * as ava from "../../src/index.js";
import { Docs, type Document, doc, expectAvaError } from "./fixtures.js";

const run = (runId: string, nodeSlug: string): ava.RunProvenance => ({
  runId,
  workflowName: "wf",
  nodeId: `${runId}:${nodeSlug}`,
  nodeName: nodeSlug,
  nodeSlug,
  lineageVector: {},
  metadata: {},
});

it("filters on _ava_node_slug, _ava_run_id and _ava_updated_at, typed", async () => {
  const ns = await Docs.open({ storage: ava.memoryStorage() });
  await ns.push();
  await ns.documents.append([doc(1)]); // outside a run: no slug
  await ns.documents.withRun(run("r1", "ingest")).append([doc(2), doc(3)]);
  const since = new Date();
  await ns.documents.withRun(run("r2", "enrich")).append([doc(4)]);

  const ids = async (filter: (w: ava.Where<Document>) => ava.Predicate) =>
    (await ns.documents.scan({ columns: ["doc_id"], filter }).toObjects()).map((r) => r.doc_id);
  expect(await ids((w) => w.eq("_ava_node_slug", "ingest"))).toEqual(["doc-2", "doc-3"]);
  expect(await ids((w) => w.in("_ava_run_id", ["r2"]))).toEqual(["doc-4"]);
  expect(await ids((w) => w.and(w.isNull("_ava_run_id"), w.lt("_ava_updated_at", since)))).toEqual(["doc-1"]);
  expect(await ids((w) => w.gte("_ava_updated_at", since))).toEqual(["doc-4"]);
  // Files of other nodes are pruned by their statistics, as for any column.
  const plan = await ns.documents.scan({ filter: (w) => w.eq("_ava_node_slug", "enrich") }).plan();
  expect(plan.files).toHaveLength(1);

  // @ts-expect-error a provenance column holds text: a number is a type error (and refused when run)
  expect(() => ns.documents.scan({ filter: (w) => w.eq("_ava_node_slug", 5) })).toThrow(/cannot compare/);
  await expectAvaError(
    // @ts-expect-error only the table's columns and the provenance columns are filterable
    () => ns.documents.scan({ filter: (w) => w.eq("_ava_nope", "x") }),
    "NOT_FOUND",
    /its provenance columns: _ava_updated_at, _ava_run_id/,
  );
});

it("a provenance filter on a table declared with rowLineage: false is NOT_FOUND, naming the column", async () => {
  const ns = await Docs.open({ storage: ava.memoryStorage() });
  await ns.push();
  await ns.plain.append([{ k: "a", v: 1 }]);
  await expectAvaError(
    () => ns.plain.scan({ filter: (w) => w.eq("_ava_node_slug", "x") }),
    "NOT_FOUND",
    /"_ava_node_slug" is not in table docs\.plain \(declared with rowLineage: false, it has no provenance columns\)/,
  );
});
