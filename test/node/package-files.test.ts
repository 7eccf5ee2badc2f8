// What `npm pack` ships: every source map a shipped file names, and every source a shipped map names, is
// itself shipped (a map leading to a missing file is a warning per module in a bundler's dev server).
// Built in a temp copy (src/, package.json, tsconfigs, the build's script), so the repository's own dist/ is never touched.
import { execFileSync } from "node:child_process";
import { cp, mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";

const REPO = join(import.meta.dirname, "..", "..");

let dir: string;
let shipped: Set<string>;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ava-pack-"));
  // scripts/dist-duckdb-urls.mjs: the build's step after tsc
  for (const file of [
    "package.json",
    "README.md",
    "tsconfig.json",
    "tsconfig.build.json",
    "scripts/dist-duckdb-urls.mjs",
  ])
    await cp(join(REPO, file), join(dir, file));
  await cp(join(REPO, "src"), join(dir, "src"), { recursive: true });
  await symlink(join(REPO, "node_modules"), join(dir, "node_modules"), "dir");
  // `npm pack` builds first (the prepack script); its JSON report lists every file of the tarball.
  const report = execFileSync("npm", ["pack", "--dry-run", "--json", "--no-audit", "--no-fund"], {
    cwd: dir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  const [pack] = JSON.parse(report.slice(report.indexOf("[")));
  shipped = new Set((pack.files as { path: string }[]).map((f) => f.path));
}, 240_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const resolveFrom = (file: string, target: string) =>
  posix.normalize(posix.join(posix.dirname(file), target));

it("the tarball holds the compiled entries, the bin and the sources the maps point at", () => {
  for (const file of ["dist/index.js", "dist/node.js", "dist/sql.js", "dist/cli/main.js", "src/index.ts"])
    expect(shipped, file).toContain(file);
  expect([...shipped].filter((f) => f.startsWith("test/") || f.startsWith("bench/"))).toEqual([]);
});

it("every sourceMappingURL of a shipped file, and every source of a shipped map, is a shipped file", async () => {
  const missing: string[] = [];
  let maps = 0;
  let sources = 0;
  for (const file of shipped) {
    if (!/\.(js|d\.ts)$/.test(file)) continue;
    const text = await readFile(join(dir, file), "utf8");
    const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(text)?.[1];
    if (url === undefined) continue;
    const map = resolveFrom(file, url);
    if (!shipped.has(map)) missing.push(`${file} -> ${map}`);
  }
  for (const file of shipped) {
    if (!file.endsWith(".map")) continue;
    maps++;
    const map = JSON.parse(await readFile(join(dir, file), "utf8"));
    for (const source of map.sources as string[]) {
      sources++;
      const path = resolveFrom(file, posix.join(map.sourceRoot ?? "", source));
      if (!shipped.has(path)) missing.push(`${file} -> ${path}`);
    }
  }
  expect(missing).toEqual([]);
  // Both kinds of map are there (.js.map and .d.ts.map), one per compiled module.
  const compiled = [...shipped].filter((f) => f.startsWith("dist/") && f.endsWith(".js")).length;
  expect(maps).toBe(2 * compiled);
  expect(sources).toBe(maps);
});
