// Bundles an entry for the browser with Vite and records every Node built-in the bundle reaches. (The demo's
// own build, with its plain Vite config on the packed package, is tested in demo.test.ts.)
import { builtinModules } from "node:module";
import { expect, it } from "vitest";
import { build, loadConfigFromFile, type Plugin } from "vite";

async function nodeImportsReachedFrom(entry: string, alsoRefuse: RegExp = /^$/): Promise<string[]> {
  const reached: string[] = [];
  const builtins = new Set(builtinModules);
  const detector: Plugin = {
    name: "detect-node-builtins",
    enforce: "pre",
    resolveId(id, importer) {
      if (
        id.startsWith("node:") ||
        builtins.has(id) ||
        builtins.has(id.split("/")[0]!) ||
        alsoRefuse.test(id)
      ) {
        reached.push(`${id} (from ${importer ?? "entry"})`);
        // Recorded, and left out of the bundle: a native addon (DuckDB's) cannot be bundled at all.
        return { id, external: true };
      }
      return null;
    },
  };
  await build({
    configFile: false,
    logLevel: "silent",
    plugins: [detector],
    build: { write: false, lib: { entry, formats: ["es"] }, minify: false },
  });
  return reached;
}

it("the browser entry (src/index.ts) reaches no node:* import", async () => {
  expect(await nodeImportsReachedFrom("src/index.ts")).toEqual([]);
});

it("avalanche-web/avro (src/avro.ts) reaches neither node:* nor parquet-wasm", async () => {
  expect(await nodeImportsReachedFrom("src/avro.ts", /parquet-wasm/)).toEqual([]);
});

it("avalanche-web/sql in the browser (src/sql.ts) reaches no node:* import and no native DuckDB", async () => {
  expect(await nodeImportsReachedFrom("src/sql.ts", /@duckdb\/node-api/)).toEqual([]);
});

it("the detector does see Node imports (control: src/node.ts reaches several)", async () => {
  const reached = await nodeImportsReachedFrom("src/node.ts", /@duckdb\/node-api/);
  expect(reached.some((r) => r.startsWith("node:fs/promises"))).toBe(true);
  expect(reached.some((r) => r.startsWith("@duckdb/node-api"))).toBe(true);
});

it("the demo's one Vite plugin is its own ingest endpoint: server hooks only, nothing in the build", async () => {
  const loaded = await loadConfigFromFile({ command: "build", mode: "production" }, "demo/vite.config.ts");
  const plugins = [loaded!.config.plugins ?? []].flat(3) as Plugin[];
  expect(plugins.map((p) => [p.name, Object.keys(p).sort()])).toEqual([
    ["demo-ingest-endpoint", ["configurePreviewServer", "configureServer", "name"]],
  ]);
});
