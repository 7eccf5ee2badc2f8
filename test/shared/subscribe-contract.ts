// Change notifications, run against every storage (memory, Node, browser): table.subscribe and ns.subscribe
// report each commit once, in order — from this instance and from another instance of the same location
// (another tab, Worker or process stands behind one) — and stop when unsubscribed.
import { describe, expect, it } from "vitest";
import type * as ava from "../../src/index.js";
import { Docs, expectAvaError, telemetry } from "./fixtures.js";
import { batchRows, Rel } from "./rel.js";
import type { StorageTarget } from "./storage-contract.js";

/** Resolves once `check` holds, polling; fails with `what` after `ms`. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  what: string,
  ms = 10_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function describeSubscriptions(name: string, target: StorageTarget) {
  describe(`subscriptions: ${name}`, () => {
    it("reports this context's commits once each, in order, with snapshot id and operation", async () => {
      const ns = await Docs.open({ storage: (await target.fresh()).open() });
      await ns.push();
      const events: ava.CommitEvent[] = [];
      const stop = ns.telemetry.subscribe((e) => events.push(e));
      const a = await ns.telemetry.append(telemetry("a", 0, 3));
      const b = await ns.telemetry.append(telemetry("b", 0, 3));
      const c = await ns.telemetry.overwrite(telemetry("c", 0, 1));
      await waitFor(() => events.length >= 3, "three events");
      await settle(100);
      expect(events.map((e) => [e.identifier, e.snapshotId, e.operation, e.sequenceNumber])).toEqual([
        ["docs.telemetry", a.snapshotId, "append", 1],
        ["docs.telemetry", b.snapshotId, "append", 2],
        ["docs.telemetry", c.snapshotId, "overwrite", 3],
      ]);
      expect(events[2]!.snapshot.totalRows).toBe(1);
      await ns.plain.append([{ k: "x", v: 1 }]); // another table: not this subscription's
      await settle(100);
      expect(events).toHaveLength(3);
      stop();
    });

    it("reports commits of another instance of the storage, every one of a burst exactly once", async () => {
      const location = await target.fresh();
      const watching = await Rel.open({ storage: location.open() });
      await watching.push();
      const events: ava.CommitEvent[] = [];
      const stop = watching.batches.subscribe((e) => events.push(e));
      const writer = await Rel.open({ storage: location.open() });
      await writer.batches.append(batchRows("w", 0, 5));
      await waitFor(() => events.length === 1, "the other instance's first commit");
      // A burst: commits land faster than notifications; each is still reported once.
      await Promise.all(
        Array.from({ length: 10 }, (_, i) => writer.batches.append(batchRows("w", i + 1, 5))),
      );
      await waitFor(() => events.length >= 11, "eleven events");
      await settle(200);
      expect(events.map((e) => e.sequenceNumber)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
      expect(new Set(events.map((e) => e.snapshotId)).size).toBe(11);
      stop();
    });

    it("ns.subscribe reports every table of its namespace; unsubscribing stops the events", async () => {
      const location = await target.fresh();
      const ns = await Docs.open({ storage: location.open() });
      await ns.push();
      const other = await Rel.open({ storage: location.open() });
      await other.push();
      const events: string[] = [];
      const stop = ns.subscribe((e) => events.push(`${e.table}#${e.sequenceNumber}`));
      await ns.telemetry.append(telemetry("a", 0, 2));
      await ns.plain.append([{ k: "x", v: 1 }]);
      await other.batches.append(batchRows("r", 0, 1)); // another namespace
      await waitFor(() => events.length >= 2, "two events");
      await settle(150);
      expect(events.sort()).toEqual(["plain#1", "telemetry#1"]);
      stop();
      stop(); // twice is harmless
      await ns.telemetry.append(telemetry("b", 0, 2));
      const elsewhere = await Docs.open({ storage: location.open() });
      await elsewhere.telemetry.append(telemetry("c", 0, 2));
      await settle(300);
      expect(events).toHaveLength(2);
    });

    it("refuses a listener that is not a function; a throwing listener misses nothing after", async () => {
      const ns = await Docs.open({ storage: (await target.fresh()).open() });
      await ns.push();
      await expectAvaError(
        () => ns.telemetry.subscribe("nope" as unknown as ava.CommitListener),
        "INVALID_ARGUMENT",
        /docs\.telemetry\.subscribe\(\) needs a listener function/,
      );
      await expectAvaError(
        () => ns.subscribe(undefined as unknown as ava.CommitListener),
        "INVALID_ARGUMENT",
        /docs\.subscribe\(\)/,
      );
      const seen: number[] = [];
      const errors: unknown[] = [];
      const original = console.error;
      console.error = (...args: unknown[]) => errors.push(args);
      try {
        const stop = ns.telemetry.subscribe((e) => {
          seen.push(e.sequenceNumber);
          if (e.sequenceNumber === 1) throw new Error("listener bug");
        });
        await ns.telemetry.append(telemetry("a", 0, 1));
        await ns.telemetry.append(telemetry("b", 0, 1));
        await waitFor(() => seen.length >= 2, "both events");
        stop();
      } finally {
        console.error = original;
      }
      expect(seen).toEqual([1, 2]);
      expect(errors).toHaveLength(1);
      expect((await ns.telemetry.history()).length).toBe(2); // the commits themselves were unaffected
    });
  });
}
