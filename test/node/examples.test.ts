// The seeds' patterns in examples/ run as a user would run them, on a fresh folder, twice.
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";

function run(example: string, root: string): string {
  return execFileSync(process.execPath, ["--import", "tsx", `examples/${example}`], {
    env: { ...process.env, AVALANCHE_ROOT: root },
    encoding: "utf8",
  });
}

it("examples/stream-pattern.ts chunks each document exactly once, across runs", async () => {
  const root = await mkdtemp(join(tmpdir(), "ava-example-"));
  try {
    const first = run("stream-pattern.ts", root);
    expect(first.match(/"documents":1/g)).toHaveLength(3);
    expect(first).toMatch(/"documents":0,"chunks":0/); // the fourth run finds nothing
    expect(first).toMatch(/at snapshot 3; chunks: 12/);
    const second = run("stream-pattern.ts", root);
    expect(second).toMatch(/at snapshot 6; chunks: 24/);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

it("examples/cursor-pattern.ts counts each reading once, across runs", async () => {
  const root = await mkdtemp(join(tmpdir(), "ava-example-"));
  try {
    expect(run("cursor-pattern.ts", root)).toMatch(
      /rolled up 5 readings\nrolled up 5 readings\nrolled up 0 readings \(nothing new\)\nrollups: \[\{"through":4,"count":5,"total":10\},\{"through":9,"count":5,"total":35\}\]/,
    );
    expect(run("cursor-pattern.ts", root)).toMatch(
      /\{"through":14,"count":5,"total":60\},\{"through":19,"count":5,"total":85\}\]/,
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
