// After `tsc`: rewrites dist/sql/duckdb-bundles.js so that the published package locates the duckdb-wasm
// bundles with `new URL("../../../@duckdb/duckdb-wasm/dist/…", import.meta.url)` instead of `?url` imports.
// Vite's dependency optimizer cannot load `?url` imports inside a dependency (UNLOADABLE_DEPENDENCY at dev
// start), while it rewrites a relative `new URL(…, import.meta.url)` to the file's real place, and `vite
// build` copies the file as an asset. The path climbs from node_modules/avalanche-web/dist/sql/ to
// node_modules/, where npm and pnpm put the app's @duckdb/duckdb-wasm beside this package. The sources keep
// `?url`, which work where they are served as they are (this repository's tests, demo and bench).
// Each import becomes one line, so the file's source map (to src/sql/duckdb-bundles.ts) still maps line for line.
import { readFileSync, writeFileSync } from "node:fs";

const file = new URL("../dist/sql/duckdb-bundles.js", import.meta.url);
const source = readFileSync(file, "utf8");
const imports = /^import (\w+) from "(@duckdb\/duckdb-wasm\/dist\/[\w.-]+)\?url";$/gm;
let count = 0;
const rewritten = source.replace(imports, (_, name, path) => {
  count++;
  return `const ${name} = new URL("../../../${path}", import.meta.url).href;`;
});
if (count !== 4 || rewritten.includes("?url")) {
  console.error(`dist-duckdb-urls: expected 4 "?url" imports in ${file.pathname}, found ${count}`);
  process.exit(1);
}
writeFileSync(file, rewritten);
