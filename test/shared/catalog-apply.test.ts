// applyOps copies only the records of the state an op writes (an append copies the tables, not the
// stream positions, cursors and namespaces), and never writes into the state it was given: the state a
// reader holds, or a group commit judged on, stays exactly as it was, and conflicts are still caught.
import { describe, expect, it } from "vitest";
import { applyOps, type CatalogOp, type CatalogState, EMPTY_STATE } from "../../src/storage/catalog/state.js";
import { expectAvaError } from "./fixtures.js";

const append = (id: string): CatalogOp => ({
  op: "commitSnapshot",
  namespace: "ns",
  table: "t",
  snapshot: {
    id,
    operation: "append",
    timestampMs: 1,
    addedFiles: [{ path: `data/ns/t/${id}.parquet`, rowCount: 10, sizeBytes: 100, stats: {} }],
  },
});
const cursor = (value: string, expected: string | null): CatalogOp => ({
  op: "setCursor",
  namespace: "ns",
  table: "t",
  key: "k",
  value,
  expected,
});

function base(): CatalogState {
  return applyOps(EMPTY_STATE, [
    { op: "createNamespace", namespace: "ns", timestampMs: 1 },
    {
      op: "createTable",
      namespace: "ns",
      table: "t",
      uuid: "u",
      schema: [],
      rowLineage: false,
      properties: {},
      timestampMs: 1,
    },
    cursor("c1", null),
    { op: "streamProgress", namespace: "ns", table: "t", key: "k", expectedPosition: 0, consumedThrough: 0 },
  ]).state;
}

describe("applyOps", () => {
  it("shares the records an append leaves alone and copies the one it writes", () => {
    const before = base();
    const frozen = JSON.stringify({ ...before, runs: undefined });
    const after = applyOps(before, [append("s1")]).state;
    expect(after.streams).toBe(before.streams);
    expect(after.cursors).toBe(before.cursors);
    expect(after.namespaces).toBe(before.namespaces);
    expect(after.tables).not.toBe(before.tables);
    expect(after.tables["ns.t"]!.history.length).toBe(1);
    expect(before.tables["ns.t"]!.history.length).toBe(0);
    expect(JSON.stringify({ ...before, runs: undefined })).toBe(frozen);
  });

  it("copies a record before its first write and leaves the given state as it was", () => {
    const before = base();
    const after = applyOps(before, [cursor("c2", "c1"), append("s1"), cursor("c3", "c2")]).state;
    expect(after.cursors).not.toBe(before.cursors);
    expect(after.cursors["ns.t#k"]).toBe("c3");
    expect(before.cursors["ns.t#k"]).toBe("c1");
    const dropped = applyOps(after, [{ op: "dropTable", namespace: "ns", table: "t" }]).state;
    expect(dropped.cursors).toEqual({});
    expect(dropped.streams).toEqual({});
    expect(after.cursors["ns.t#k"]).toBe("c3");
    expect(Object.keys(after.streams)).toEqual(["ns.t#k"]);
  });

  it("still refuses a moved cursor, and a refused commit changes nothing", async () => {
    const before = base();
    await expectAvaError(
      () => applyOps(before, [append("s1"), cursor("c2", "stale")]),
      "COMMIT_CONFLICT",
      /moved from "stale" to "c1"/,
    );
    expect(before.tables["ns.t"]!.history.length).toBe(0);
    expect(before.cursors["ns.t#k"]).toBe("c1");
  });
});
