// Which checkpoints a catalog keeps without maintenance: the newest few, and older ones at a doubling
// spacing in age, so that cleanup with any grace period still finds one old enough to clean up to.
import { describe, expect, it } from "vitest";
import {
  checkpointsToPrune,
  KEEP_NEWEST_CHECKPOINTS,
} from "../../src/storage/catalog/checkpoint-retention.js";

const SECOND = 1000;

/** Checkpoints every `every` versions up to `upTo`, one a second of version, as of time `upTo` s. */
function written(upTo: number, every: number) {
  const out = [];
  for (let v = every; v <= upTo; v += every) out.push({ version: v, writtenMs: v * SECOND });
  return out;
}

describe("checkpointsToPrune", () => {
  it("keeps the newest few whatever their age (a frozen clock)", () => {
    const all = written(1000, 100).map((c) => ({ ...c, writtenMs: 0 }));
    const prune = checkpointsToPrune(all, 0);
    expect(all.length - prune.length).toBe(KEEP_NEWEST_CHECKPOINTS);
    expect(prune).not.toContain(1000);
  });

  it("keeps O(log age) checkpoints and, for any grace period, one between it and about twice it", () => {
    const now = 100_000 * SECOND;
    const all = written(100_000, 100);
    const prune = new Set(checkpointsToPrune(all, now));
    const kept = all.filter((c) => !prune.has(c.version));
    expect(kept.length).toBeLessThanOrEqual(KEEP_NEWEST_CHECKPOINTS + Math.ceil(Math.log2(1000)));
    for (const graceS of [150, 600, 3600, 20_000, 60_000]) {
      const cutoff = now - graceS * SECOND;
      const cleanableTo = Math.max(...kept.filter((c) => c.writtenMs <= cutoff).map((c) => c.version));
      const ideal = Math.max(...all.filter((c) => c.writtenMs <= cutoff).map((c) => c.version));
      // Cleanup would remove the entries before `cleanableTo`: at least those older than ~2 grace periods.
      expect(now - cleanableTo * SECOND).toBeLessThanOrEqual(2 * (now - ideal * SECOND) + 100 * SECOND);
    }
  });

  it("keeps one checkpoint of unknown age (written before ages were recorded) and prunes the others", () => {
    const all = [
      { version: 100, writtenMs: undefined },
      { version: 200, writtenMs: undefined },
      ...written(600, 100).slice(2),
    ];
    // 600, 500, 400 are the newest; 300 (300 s old) is under twice 400's age (200 s); 200 is kept as the oldest.
    expect(checkpointsToPrune(all, 600 * SECOND)).toEqual([300, 100]);
  });
});
