// Five-field cron expressions (minute hour day-of-month month day-of-week), in UTC, for scheduled
// workflows: `*`, numbers, ranges `a-b`, steps `*/n` and `a-b/n`, lists `a,b`, month and day names (JAN,
// MON), and 7 for Sunday. As in Vixie cron, when both day fields are restricted a day matching either runs.
import { AvaError } from "../errors.js";

interface Field {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const FIELDS: readonly Field[] = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  {
    name: "month",
    min: 1,
    max: 12,
    names: ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"],
  },
  { name: "day of week", min: 0, max: 7, names: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"] },
];

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** Far enough for any expression that fires at all (Feb 29 on a given weekday repeats within 28 years). */
const HORIZON_MS = 29 * 366 * DAY;

export class Cron {
  readonly #sets: readonly Set<number>[];
  readonly #dayOfMonthAny: boolean;
  readonly #dayOfWeekAny: boolean;

  private constructor(
    readonly expression: string,
    sets: Set<number>[],
    dayOfMonthAny: boolean,
    dayOfWeekAny: boolean,
  ) {
    this.#sets = sets;
    this.#dayOfMonthAny = dayOfMonthAny;
    this.#dayOfWeekAny = dayOfWeekAny;
  }

  static parse(expression: string): Cron {
    if (typeof expression !== "string")
      throw new AvaError(
        "INVALID_ARGUMENT",
        `a schedule is a cron expression string, got ${typeof expression}`,
      );
    const parts = expression.trim().split(/\s+/);
    if (parts.length !== 5)
      throw new AvaError(
        "INVALID_ARGUMENT",
        `schedule ${JSON.stringify(expression)}: a cron expression has 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}`,
      );
    const sets = parts.map((p, i) => parseField(p, FIELDS[i]!, expression));
    // Sunday is 0 and 7.
    if (sets[4]!.delete(7)) sets[4]!.add(0);
    const cron = new Cron(expression, sets, parts[2] === "*", parts[4] === "*");
    if (cron.next(Date.UTC(2000, 0, 1)) === undefined)
      throw new AvaError("INVALID_ARGUMENT", `schedule ${JSON.stringify(expression)} never fires`);
    return cron;
  }

  /** Whether the minute starting at `ms` (UTC) is a tick. */
  matches(ms: number): boolean {
    const d = new Date(ms);
    return (
      this.#sets[0]!.has(d.getUTCMinutes()) &&
      this.#sets[1]!.has(d.getUTCHours()) &&
      this.#sets[3]!.has(d.getUTCMonth() + 1) &&
      this.#dayMatches(d)
    );
  }

  #dayMatches(d: Date): boolean {
    const dom = this.#sets[2]!.has(d.getUTCDate());
    const dow = this.#sets[4]!.has(d.getUTCDay());
    if (this.#dayOfMonthAny) return dow;
    if (this.#dayOfWeekAny) return dom;
    return dom || dow;
  }

  /** The first tick strictly after `ms`, or undefined if there is none within decades. */
  next(ms: number): number | undefined {
    let t = Math.floor(ms / MINUTE) * MINUTE + MINUTE;
    const end = ms + HORIZON_MS;
    while (t <= end) {
      const d = new Date(t);
      if (!this.#sets[3]!.has(d.getUTCMonth() + 1)) {
        t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
      } else if (!this.#dayMatches(d)) {
        t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
      } else if (!this.#sets[1]!.has(d.getUTCHours())) {
        t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours() + 1);
      } else if (!this.#sets[0]!.has(d.getUTCMinutes())) {
        t += MINUTE;
      } else return t;
    }
    return undefined;
  }

  /** The last tick at or before `ms`, or undefined if there is none within decades. */
  previous(ms: number): number | undefined {
    let t = Math.floor(ms / MINUTE) * MINUTE;
    const end = ms - HORIZON_MS;
    while (t >= end) {
      const d = new Date(t);
      const y = d.getUTCFullYear();
      const mo = d.getUTCMonth();
      const day = d.getUTCDate();
      // Each jump lands on the last minute of the unit before.
      if (!this.#sets[3]!.has(mo + 1)) t = Date.UTC(y, mo, 1) - MINUTE;
      else if (!this.#dayMatches(d)) t = Date.UTC(y, mo, day) - MINUTE;
      else if (!this.#sets[1]!.has(d.getUTCHours())) t = Date.UTC(y, mo, day, d.getUTCHours()) - MINUTE;
      else if (!this.#sets[0]!.has(d.getUTCMinutes())) t -= MINUTE;
      else return t;
    }
    return undefined;
  }
}

function parseField(text: string, field: Field, expression: string): Set<number> {
  const bad = (why: string) =>
    new AvaError(
      "INVALID_ARGUMENT",
      `schedule ${JSON.stringify(expression)}: ${field.name} ${JSON.stringify(text)}: ${why}`,
    );
  const value = (v: string): number => {
    const named = field.names?.indexOf(v.toUpperCase()) ?? -1;
    if (named >= 0) return named + (field.name === "month" ? 1 : 0);
    if (!/^\d+$/.test(v)) throw bad(`${JSON.stringify(v)} is not a number${field.names ? " or a name" : ""}`);
    const n = Number(v);
    if (n < field.min || n > field.max) throw bad(`${n} is outside ${field.min}-${field.max}`);
    return n;
  };
  const out = new Set<number>();
  for (const part of text.split(",")) {
    const [range, stepText, extra] = part.split("/");
    if (extra !== undefined || range === undefined || range === "") throw bad("malformed");
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText) || Number(stepText) === 0)
        throw bad(`step ${JSON.stringify(stepText)} must be ≥ 1`);
      step = Number(stepText);
    }
    let low: number;
    let high: number;
    if (range === "*") {
      low = field.min;
      high = field.name === "day of week" ? 6 : field.max;
    } else if (range.includes("-")) {
      const [a, b, more] = range.split("-");
      if (more !== undefined || a === undefined || b === undefined) throw bad("malformed range");
      low = value(a);
      high = value(b);
      if (low > high) throw bad(`range ${low}-${high} runs backwards`);
    } else {
      low = value(range);
      // `5/15` means from 5 to the end, every 15.
      high = stepText !== undefined ? field.max : low;
    }
    for (let v = low; v <= high; v += step) out.add(v);
  }
  return out;
}
