// The demo's whole Vite config: nothing avalanche-specific (no aliases, polyfills or library plugins), by design.
// avalanche-web comes from node_modules (the packed tarball), so its wasm and worker URLs resolve as in any app.
// The one plugin is the app's own server side: the ingest endpoint its live stream sends to.
import { defineConfig } from "vite";
import { ingestEndpoint } from "./ingest-plugin.js";

export default defineConfig({
  build: { outDir: "dist", emptyOutDir: true, target: "es2022" },
  worker: { format: "es" },
  plugins: [ingestEndpoint()],
});
