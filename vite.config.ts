// One config, two test projects: `node` (test/node + test/shared) and `browser` (test/browser + test/shared,
// real headless Chromium through Playwright driving Debian's build, never a downloaded one).
import { playwright } from "@vitest/browser-playwright";
import { defineConfig } from "vitest/config";
import { CHROMIUM_ARGS, chromiumPath } from "./scripts/chromium-path.mjs";
import { externalRequests, watchNetwork } from "./test/support/network-watch.js";

export default defineConfig({
  // Heavy dependencies are pre-bundled up front, or Vite re-optimises mid-run and reloads the test page.
  optimizeDeps: { include: ["apache-arrow", "zod", "idb", "@duckdb/duckdb-wasm"], exclude: ["parquet-wasm"] },
  // AVA_SOAK_APPENDS reaches the Chromium tests as import.meta.env.AVA_SOAK_APPENDS (the soak's size).
  envPrefix: ["VITE_", "AVA_SOAK_"],
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // A fast toEqual for typed arrays (the Avro suites compare millions of points).
    setupFiles: ["test/support/typed-array-equality.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "node",
          environment: "node",
          include: ["test/node/**/*.test.ts", "test/shared/**/*.test.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "browser",
          include: ["test/browser/**/*.test.ts", "test/shared/**/*.test.ts"],
          browser: {
            enabled: true,
            headless: true,
            screenshotFailures: false,
            provider: playwright({
              launchOptions: { executablePath: chromiumPath() ?? "/usr/bin/chromium", args: CHROMIUM_ARGS },
            }),
            instances: [{ browser: "chromium" }],
            commands: { watchNetwork, externalRequests },
          },
        },
      },
    ],
  },
});
