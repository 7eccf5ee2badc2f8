// withDeadline: the request timeout of the live stream's transports. Its deadline must come even when a
// garbage collection runs before it (Node's AbortSignal.timeout inside AbortSignal.any can be collected
// and never fire: a live request past its timeout was then never abandoned).
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { withDeadline } from "../../src/util/deadline.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Settles once `signal` aborts, with its reason. */
const untilAborted = (signal: AbortSignal) =>
  signal.aborted
    ? Promise.resolve(signal.reason)
    : new Promise<unknown>((resolve) => signal.addEventListener("abort", () => resolve(signal.reason)));

describe("withDeadline", () => {
  it("aborts the work's signal at the deadline, even with garbage collections before it", async () => {
    const collecting = setInterval(gc, 5);
    try {
      const started = Date.now();
      const reason = await withDeadline(new AbortController().signal, 150, untilAborted);
      expect(Date.now() - started).toBeGreaterThanOrEqual(140);
      expect((reason as DOMException).name).toBe("TimeoutError");
      expect(String((reason as DOMException).message)).toMatch(/150 ms/);
    } finally {
      clearInterval(collecting);
    }
  });

  it("follows the caller's signal, already aborted or aborted later, with its reason", async () => {
    const early = new AbortController();
    early.abort("stopped");
    expect(await withDeadline(early.signal, 60_000, untilAborted)).toBe("stopped");
    const later = new AbortController();
    setTimeout(() => later.abort("closed"), 20);
    expect(await withDeadline(later.signal, 60_000, untilAborted)).toBe("closed");
  });

  it("returns the work's result and passes its error through, leaving nothing armed", async () => {
    const caller = new AbortController();
    let seen: AbortSignal | undefined;
    expect(
      await withDeadline(caller.signal, 50, async (s) => {
        seen = s;
        return 7;
      }),
    ).toBe(7);
    await expect(
      withDeadline(caller.signal, 50, async () => {
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    // Past the deadline and after the caller aborts, a settled call's signal stays as it was.
    await new Promise((r) => setTimeout(r, 80));
    caller.abort("late");
    expect(seen?.aborted).toBe(false);
  });
});
