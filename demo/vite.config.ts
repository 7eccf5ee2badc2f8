// The demo's whole Vite config: nothing avalanche-specific (no plugins, aliases or polyfills), by design.
// avalanche-web comes from node_modules (the packed tarball), so its wasm and worker URLs resolve as in any app.
import { defineConfig } from "vite";

export default defineConfig({
  build: { outDir: "dist", emptyOutDir: true, target: "es2022" },
  worker: { format: "es" },
});
