// The demo's whole Vite config: nothing avalanche-specific (no polyfills, no plugins), by design.
import { defineConfig } from "vite";

export default defineConfig({ root: import.meta.dirname, build: { outDir: "dist", emptyOutDir: true } });
