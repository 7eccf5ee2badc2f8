// The run progress the CLI prints: a bar redrawn in place on a terminal, one plain line per event otherwise.
import { describe, expect, it } from "vitest";
import { progressPrinter } from "../../src/cli/progress.js";

const events = [
  { type: "node-started", slug: "load", done: 0, total: 2 },
  { type: "log", slug: "load", line: { level: "info", message: "read 3 rows", timestampMs: 0 } },
  { type: "node-finished", slug: "load", status: "success", done: 1, total: 2 },
  { type: "node-started", slug: "save", done: 1, total: 2 },
  { type: "node-finished", slug: "save", status: "failed", done: 2, total: 2 },
  { type: "run-finished", status: "failed", done: 2, total: 2 },
] as const;

describe("progressPrinter", () => {
  it("prints one line per event off a terminal", () => {
    const lines: string[] = [];
    const print = progressPrinter(
      (l) => lines.push(l),
      false,
      () => {
        throw new Error("no drawing off a terminal");
      },
    );
    for (const e of events) print(e);
    expect(lines).toEqual([
      "started load",
      "  load: [info] read 3 rows",
      "success load (1/2)",
      "started save",
      "failed save (2/2)",
    ]);
  });

  it("redraws a bar in place on a terminal and clears it at the end", () => {
    const lines: string[] = [];
    let screen = "";
    const print = progressPrinter(
      (l) => lines.push(l),
      true,
      (t) => (screen += t),
    );
    for (const e of events) print(e);
    const frames = screen.split("\r\x1b[2K").filter(Boolean);
    expect(frames).toEqual([
      "[------------------------] 0/2  load",
      "[------------------------] 0/2  load",
      "[############------------] 1/2",
      "[############------------] 1/2  save",
      "[########################] 2/2",
    ]);
    expect(screen.endsWith("\r\x1b[2K")).toBe(true);
    expect(lines).toEqual(["  load: [info] read 3 rows"]);
  });
});
