// The outbox's catalog ops as a state machine (node and Chromium): batches join and leave in order, the byte
// cap and the sender lease are judged atomically, drops are counted, checkpoints keep it all, and a log
// entry of the wrong shape is CATALOG_CORRUPT rather than a TypeError.
import { describe, expect, it } from "vitest";
import { memoryStorage } from "../../src/index.js";
import type { OutboxBatch } from "../../src/storage/catalog/model.js";
import { deserializeState, serializeState } from "../../src/storage/catalog/checkpoint.js";
import { applyOps, EMPTY_STATE } from "../../src/storage/catalog/state.js";
import { checked, logEntry } from "../../src/storage/catalog/validate.js";
import { expectAvaError } from "./fixtures.js";

const batch = (id: string, bytes = 100, points = 10): OutboxBatch => ({
  id,
  path: `outbox/s/${id}.avro`,
  points,
  bytes,
  createdMs: 1,
});

describe("outbox catalog ops", () => {
  it("adds in order, removes acknowledged batches, counts dropped ones, and ignores repeats", () => {
    let state = EMPTY_STATE;
    for (const id of ["a", "b", "c"])
      state = applyOps(state, [{ op: "outboxAdd", stream: "s", batch: batch(id) }]).state;
    state = applyOps(state, [{ op: "outboxAdd", stream: "s", batch: batch("a") }]).state; // a rebased repeat
    expect(state.outboxes.s!.batches.map((b) => b.id)).toEqual(["a", "b", "c"]);
    state = applyOps(state, [{ op: "outboxRemove", stream: "s", ids: ["b"] }]).state;
    state = applyOps(state, [{ op: "outboxRemove", stream: "s", ids: ["a", "zz"], dropped: true }]).state;
    state = applyOps(state, [{ op: "outboxRemove", stream: "s", ids: ["a"], dropped: true }]).state; // gone already
    expect(state.outboxes.s).toEqual({ batches: [batch("c")], droppedBatches: 1, droppedPoints: 10 });
    expect(state.outboxes.other).toBeUndefined();
  });

  it("refuses a batch past the cap (an empty outbox takes one), atomically with the drops of its commit", async () => {
    let state = applyOps(EMPTY_STATE, [
      { op: "outboxAdd", stream: "s", batch: batch("big", 500), maxBytes: 300 },
    ]).state;
    expect(state.outboxes.s!.batches).toHaveLength(1);
    await expectAvaError(
      () => applyOps(state, [{ op: "outboxAdd", stream: "s", batch: batch("n", 100), maxBytes: 300 }]),
      "QUOTA_EXCEEDED",
      /outbox of live stream s holds 500 bytes/,
    );
    state = applyOps(state, [
      { op: "outboxRemove", stream: "s", ids: ["big"], dropped: true },
      { op: "outboxAdd", stream: "s", batch: batch("n", 100), maxBytes: 300 },
    ]).state;
    expect(state.outboxes.s).toMatchObject({ batches: [batch("n", 100)], droppedBatches: 1 });
  });

  it("takes, renews and releases the sender lease only from the lease it read", async () => {
    const one = { owner: "one", untilMs: 10 };
    let state = applyOps(EMPTY_STATE, [{ op: "outboxLease", stream: "s", lease: one, expected: null }]).state;
    await expectAvaError(
      () =>
        applyOps(state, [
          { op: "outboxLease", stream: "s", lease: { owner: "two", untilMs: 20 }, expected: null },
        ]),
      "COMMIT_CONFLICT",
      /sender lease of live stream s/,
    );
    state = applyOps(state, [
      { op: "outboxLease", stream: "s", lease: { owner: "two", untilMs: 20 }, expected: one },
    ]).state;
    expect(state.outboxes.s!.lease).toEqual({ owner: "two", untilMs: 20 });
    state = applyOps(state, [
      { op: "outboxLease", stream: "s", lease: null, expected: { owner: "two", untilMs: 20 } },
    ]).state;
    expect(state.outboxes.s!.lease).toBeUndefined();
  });

  it("survives a checkpoint, and a committed outbox shows in a new catalog instance", async () => {
    const { state } = applyOps(EMPTY_STATE, [
      { op: "outboxAdd", stream: "s", batch: batch("a") },
      { op: "outboxLease", stream: "s", lease: { owner: "o", untilMs: 5 }, expected: null },
    ]);
    const back = deserializeState(serializeState(state), (what) => new Error(what));
    expect(back.outboxes).toEqual(state.outboxes);
    const storage = memoryStorage();
    await storage.catalog.commit([{ op: "outboxAdd", stream: "t", batch: batch("x") }]);
    const again = memoryStorage({ id: storage.descriptor.kind === "memory" ? storage.descriptor.id : "" });
    expect((await again.catalog.current()).outboxes.t!.batches).toEqual([batch("x")]);
  });

  it("finds an outbox entry of the wrong shape", () => {
    const bad = (op: object) => () => checked({ ops: [op] }, logEntry, "entry");
    expect(bad({ op: "outboxAdd", stream: "s", batch: { id: "a" } })).toThrow(
      /entry\.ops\[0\]\.batch\.path should be a string/,
    );
    expect(bad({ op: "outboxRemove", stream: "s", ids: "a" })).toThrow(/ids should be an array/);
    expect(bad({ op: "outboxLease", stream: "s", lease: { owner: 1, untilMs: 2 }, expected: null })).toThrow(
      /owner should be a string/,
    );
    expect(bad({ op: "outboxAdd", stream: "s", batch: batch("a") })).not.toThrow();
  });
});
