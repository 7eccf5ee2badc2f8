// Five-field cron expressions: parsing, refusals, and the next/previous tick in UTC.
import { describe, expect, it } from "vitest";
import { Cron } from "../../src/index.js";

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

describe("Cron", () => {
  it("finds the next and previous ticks of common expressions", () => {
    const every5 = Cron.parse("*/5 * * * *");
    expect(iso(every5.next(at("2026-11-30T23:58:30Z")))).toBe("2026-12-01T00:00:00.000Z");
    expect(iso(every5.next(at("2026-12-01T00:00:00Z")))).toBe("2026-12-01T00:05:00.000Z");
    expect(iso(every5.previous(at("2026-12-01T00:04:59Z")))).toBe("2026-12-01T00:00:00.000Z");
    expect(iso(every5.previous(at("2026-12-01T00:05:00Z")))).toBe("2026-12-01T00:05:00.000Z");
    const weekdays = Cron.parse("30 9 * * MON-FRI");
    // 2026-12-05 is a Saturday: the next weekday 09:30 is Monday the 7th.
    expect(iso(weekdays.next(at("2026-12-04T10:00:00Z")))).toBe("2026-12-07T09:30:00.000Z");
    expect(iso(weekdays.previous(at("2026-12-07T09:00:00Z")))).toBe("2026-12-04T09:30:00.000Z");
    const leap = Cron.parse("0 0 29 FEB *");
    expect(iso(leap.next(at("2026-03-01T00:00:00Z")))).toBe("2028-02-29T00:00:00.000Z");
    expect(iso(leap.previous(at("2026-03-01T00:00:00Z")))).toBe("2024-02-29T00:00:00.000Z");
    // Both day fields restricted: either matches (the 1st, or any Sunday; 7 is Sunday too).
    const either = Cron.parse("0 12 1 * 7");
    expect(iso(either.next(at("2026-12-01T13:00:00Z")))).toBe("2026-12-06T12:00:00.000Z");
    expect(either.matches(at("2027-01-01T12:00:00Z"))).toBe(true);
    const list = Cron.parse("0,15-17,50/5 3 * * *");
    const ticks: string[] = [];
    for (let t = at("2026-12-01T02:59:00Z"); ticks.length < 6; ) {
      t = list.next(t)!;
      ticks.push(iso(t)!.slice(11, 16));
    }
    expect(ticks).toEqual(["03:00", "03:15", "03:16", "03:17", "03:50", "03:55"]);
  });

  it("refuses malformed expressions and ones that never fire, naming the field", () => {
    const refused = (e: string) => {
      try {
        Cron.parse(e);
      } catch (err) {
        return `${(err as { code: string }).code}: ${(err as Error).message}`;
      }
      return "accepted";
    };
    expect(refused("* * * *")).toMatch(/^INVALID_ARGUMENT: .*has 5 fields .* got 4$/);
    expect(refused("60 * * * *")).toMatch(/minute "60": 60 is outside 0-59/);
    expect(refused("* * * * 8")).toMatch(/day of week "8": 8 is outside 0-7/);
    expect(refused("*/0 * * * *")).toMatch(/step "0" must be ≥ 1/);
    expect(refused("5-1 * * * *")).toMatch(/range 5-1 runs backwards/);
    expect(refused("* * * FOO *")).toMatch(/month "FOO": "FOO" is not a number or a name/);
    expect(refused("0 0 30 2 *")).toMatch(/never fires/);
    expect(refused("1,,2 * * * *")).toMatch(/malformed/);
  });
});
