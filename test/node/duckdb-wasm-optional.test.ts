// @duckdb/duckdb-wasm is an optional peer dependency: Node users never install it. The browser SQL entry
// (src/sql.ts, what `avalanche-web/sql` is outside Node) must then say which package to install. Proven in a
// folder where the package really is absent: a copy of src/ beside a node_modules holding every dependency
// of this repository but duckdb-wasm, run by a separate Node process.
import { execFileSync } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";

const REPO = join(import.meta.dirname, "..", "..");
const MISSING = "@duckdb/duckdb-wasm";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ava-no-duckdb-wasm-"));
  await cp(join(REPO, "src"), join(dir, "src"), { recursive: true });
  await writeFile(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  const modules = join(REPO, "node_modules");
  for (const entry of await readdir(modules)) {
    if (entry === ".bin" || entry.startsWith(".")) continue;
    const scoped = entry.startsWith("@");
    const names = scoped ? (await readdir(join(modules, entry))).map((n) => `${entry}/${n}`) : [entry];
    for (const name of names) {
      if (name === MISSING) continue;
      if (scoped) await mkdir(join(dir, "node_modules", entry), { recursive: true });
      else await mkdir(join(dir, "node_modules"), { recursive: true });
      await symlink(join(modules, name), join(dir, "node_modules", name), "dir");
    }
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const script = `
import * as ava from "./src/index.js";
import { open } from "./src/sql.js";
const Def = ava.defineNamespace({ name: "t", tables: { points: ava.table({ schema: ava.avro.avroStreamArrowSchema }) } });
const ns = await Def.open({ storage: ava.memoryStorage() });
try {
  await open(ns);
  console.log(JSON.stringify({ opened: true }));
} catch (err) {
  console.log(JSON.stringify({ name: err.name, code: err.code, message: err.message }));
}
`;

it("without @duckdb/duckdb-wasm installed, the browser SQL entry is UNAVAILABLE, naming the package to install", async () => {
  await expect(readdir(join(dir, "node_modules", "@duckdb"))).resolves.not.toContain("duckdb-wasm");
  await writeFile(join(dir, "try-sql.ts"), script);
  const printed = execFileSync(process.execPath, ["--import", "tsx", "try-sql.ts"], {
    cwd: dir,
    encoding: "utf8",
  });
  const result = JSON.parse(printed.trim());
  expect(result.name).toBe("AvaError");
  expect(result.code).toBe("UNAVAILABLE");
  expect(result.message).toContain("npm install @duckdb/duckdb-wasm (an optional peer dependency)");
  expect(result.message).toContain(MISSING); // and what the loader said
});

it("package.json: duckdb-wasm is an optional peer (and a devDependency for the tests), like @duckdb/node-api", async () => {
  const pkg = JSON.parse(await readFile(join(REPO, "package.json"), "utf8"));
  for (const name of [MISSING, "@duckdb/node-api"]) {
    expect(pkg.dependencies[name], name).toBeUndefined();
    expect(pkg.peerDependencies[name], name).toBe(pkg.devDependencies[name]);
    expect(pkg.peerDependenciesMeta[name], name).toEqual({ optional: true });
  }
});
