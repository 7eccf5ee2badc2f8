// The duckdb-wasm bundles, served from the app's own origin (no CDN). Kept in a module of its own, imported
// only when the caller passes no `bundles`, so that apps built by another bundler can hand over their own
// URLs instead. Here Vite turns each `?url` import into the file's URL; the published build has them as
// `new URL("../../../@duckdb/…", import.meta.url)` instead (scripts/dist-duckdb-urls.mjs), the form Vite's
// dependency optimizer and `vite build` both resolve inside a dependency.
import type { DuckDBBundles } from "@duckdb/duckdb-wasm";
import ehWorker from "@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js?url";
import mvpWorker from "@duckdb/duckdb-wasm/dist/duckdb-browser-mvp.worker.js?url";
import ehModule from "@duckdb/duckdb-wasm/dist/duckdb-eh.wasm?url";
import mvpModule from "@duckdb/duckdb-wasm/dist/duckdb-mvp.wasm?url";

export const localBundles: DuckDBBundles = {
  mvp: { mainModule: mvpModule, mainWorker: mvpWorker },
  eh: { mainModule: ehModule, mainWorker: ehWorker },
};
