// Scan filters written as text (the CLI's --where, the server's filter=): parsed into the Predicate a scan
// takes, values typed by the table's columns; malformed text refused with the position.
import * as A from "apache-arrow";
import { describe, expect, it } from "vitest";
import { parseFilter } from "../../src/table/filter-text.js";

const schema = new A.Schema([
  new A.Field("name", new A.Utf8()),
  new A.Field("n", new A.Int64()),
  new A.Field("x", new A.Float64()),
  new A.Field("small", new A.Int32()),
  new A.Field("ok", new A.Bool()),
  new A.Field("at", new A.TimestampMicrosecond("UTC")),
]);

describe("parseFilter", () => {
  it("parses comparisons, in, is [not] null, and/or with precedence and parentheses", () => {
    expect(parseFilter("n >= 2 and x < 1.5 or name = 'it''s'", schema)).toEqual({
      op: "or",
      args: [
        {
          op: "and",
          args: [
            { op: "gte", column: "n", value: 2n },
            { op: "lt", column: "x", value: 1.5 },
          ],
        },
        { op: "eq", column: "name", value: "it's" },
      ],
    });
    expect(parseFilter("(small != 3 or ok = true) and name is not null", schema)).toEqual({
      op: "and",
      args: [
        {
          op: "or",
          args: [
            { op: "ne", column: "small", value: 3 },
            { op: "eq", column: "ok", value: true },
          ],
        },
        { op: "notNull", column: "name" },
      ],
    });
    expect(parseFilter("name in ('a', 'b, c') and \"n\" is null", schema)).toEqual({
      op: "and",
      args: [
        { op: "in", column: "name", values: ["a", "b, c"] },
        { op: "isNull", column: "n" },
      ],
    });
    expect(parseFilter("at >= '2026-01-01T00:00:00Z'", schema)).toEqual({
      op: "gte",
      column: "at",
      value: new Date("2026-01-01T00:00:00Z"),
    });
    expect(parseFilter("x > -1e3", schema)).toEqual({ op: "gt", column: "x", value: -1000 });
  });

  it("refuses malformed text naming what and where", () => {
    const refused = (text: string) => {
      try {
        parseFilter(text, schema);
        return "accepted";
      } catch (err) {
        return `${(err as { code: string }).code}: ${(err as Error).message}`;
      }
    };
    expect(refused("")).toMatch(/^INVALID_ARGUMENT: .*empty/);
    expect(refused("n >")).toMatch(/a value is missing after n/);
    expect(refused("n > 1 and")).toMatch(/expected a column at the end/);
    expect(refused("name = 'open")).toMatch(/unterminated quote at 7/);
    expect(refused("n ~ 1")).toMatch(/unexpected "~" at 2/);
    expect(refused("(n = 1")).toMatch(/expected "\)" at the end/);
    expect(refused("n = 1 2")).toMatch(/unexpected "2" at 6/);
    expect(refused("at > 'yesterday'")).toMatch(/'yesterday' is not a date for at/);
    expect(refused("name is 1")).toMatch(/expected "null" after "is"/);
  });
});
