// The export lane of a table (src/iceberg/lanes.ts): background exports wait for more commits to join them,
// and an explicit export ends that wait. Delays here are a minute long, so the test times out unless the
// wait is ended as it should be.
import { setImmediate as tick } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { backgroundDelayMs, inLane } from "../../src/iceberg/lanes.js";
import { memoryStorage } from "../../src/index.js";

const MINUTE = 60_000;

describe("Iceberg export lanes", () => {
  it("commits made one after another during a background export's wait share it; exportIceberg() ends the wait", async () => {
    const storage = memoryStorage();
    const runs: string[] = [];
    const work = (name: string) => async () => {
      runs.push(name);
      return name;
    };
    const first = inLane(storage, "ns.t", true, work("background"), MINUTE);
    await tick();
    const second = inLane(storage, "ns.t", true, work("background 2"), MINUTE);
    await tick();
    const third = inLane(storage, "ns.t", true, work("background 3"), MINUTE);
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(runs).toEqual([]); // still waiting
    const started = performance.now();
    const explicit = await inLane(storage, "ns.t", false, work("explicit"));
    expect(performance.now() - started).toBeLessThan(MINUTE / 2);
    expect(await first).toBe("background");
    expect(explicit).toBe("explicit");
    expect(runs).toEqual(["background", "explicit"]); // one run for the three commits, then the export
  });

  it("an explicit export queued behind a running one makes the next background export skip its wait", async () => {
    const storage = memoryStorage();
    let release!: () => void;
    const running = inLane(
      storage,
      "ns.t",
      false,
      () => new Promise<string>((r) => (release = () => r("running"))),
    );
    const background = inLane(storage, "ns.t", true, async () => "background", MINUTE);
    const explicit = inLane(storage, "ns.t", false, async () => "explicit");
    await tick(); // the running export has started
    const started = performance.now();
    release();
    expect(await Promise.all([running, background, explicit])).toEqual(["running", "background", "explicit"]);
    expect(performance.now() - started).toBeLessThan(MINUTE / 2);
  });

  it("a background export waits 25 times what the last version cost to write, within 50 ms and 1 s", () => {
    expect(backgroundDelayMs(undefined)).toBe(50); // nothing written yet in this process
    expect(backgroundDelayMs(0.5)).toBe(50);
    expect(backgroundDelayMs(12)).toBe(300); // a JSON listing thousands of snapshots
    expect(backgroundDelayMs(400)).toBe(1000); // staleness stays bounded however slow the store
  });
});
