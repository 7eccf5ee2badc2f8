// Change notifications across contexts in real Chromium: a Web Worker commits to the page's storage and
// the page's subscriber hears of every snapshot (the Worker's catalog announces on the storage's
// BroadcastChannel); a Worker's commits to another storage name are not heard.
import { expect, it } from "vitest";
import { browserStorage, type CommitEvent } from "../../src/index.js";
import { ulid } from "../../src/util/ids.js";
import { Rel } from "../shared/rel.js";
import { waitFor } from "../shared/subscribe-contract.js";
import { request, startWriter } from "./worker-client.js";

it("hears every commit a Web Worker makes, and nothing from another storage", async () => {
  const name = `s${ulid()}`;
  const ns = await Rel.open({ storage: browserStorage({ name, persist: false }) });
  await ns.push();
  const events: CommitEvent[] = [];
  const stop = ns.batches.subscribe((e) => events.push(e));
  const worker = startWriter();
  try {
    await request(
      worker,
      { cmd: "append", name, writer: "worker", batches: 6, rows: 20 },
      (m) => m.done === true,
    );
    await waitFor(() => events.length >= 6, "six events from the Worker");
    const other = `s${ulid()}`;
    await request(
      worker,
      { cmd: "append", name: other, writer: "w", batches: 2, rows: 5 },
      (m) => m.done === true,
    );
    await new Promise((r) => setTimeout(r, 300));
  } finally {
    worker.terminate();
    stop();
  }
  expect(events.map((e) => e.sequenceNumber)).toEqual([1, 2, 3, 4, 5, 6]);
  expect(events.map((e) => e.snapshotId)).toEqual((await ns.batches.history()).map((s) => s.id));
  expect(events.every((e) => e.snapshot.addedRows === 20)).toBe(true);
});
