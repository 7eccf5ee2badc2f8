// The `avalanche-web` command for tests that run it as a separate process: src/cli/main.ts bundled once per
// test file by esbuild, its packages left external (resolved from node_modules, as an installed package's
// are). A start costs ~0.6 s of CPU this way against ~2 s through `--import tsx`, which transpiles the source
// tree anew in every process, and the CLI suites start the command dozens of times. Commands that load a
// user's TypeScript module (run, rerun, worker) still need tsx: see `tsxCli`.
import { rmSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { build } from "esbuild";

const ROOT = join(import.meta.dirname, "..", "..");
export const CLI_SOURCE = join(ROOT, "src", "cli", "main.ts");

let bundled: Promise<string> | undefined;

/** The bundled command's path; built on the first call of this process. */
export function bundledCli(): Promise<string> {
  bundled ??= (async () => {
    // Two folders below the repository's root, as src/cli is: the bundle's bare imports resolve from its
    // node_modules, and the version is read from "../../package.json" (src/cli/usage.ts).
    const dir = join(ROOT, "node_modules", ".ava-test-cli");
    await mkdir(dir, { recursive: true });
    const outfile = join(dir, `main-${process.pid}-${Date.now()}.mjs`);
    await build({
      entryPoints: [CLI_SOURCE],
      bundle: true,
      platform: "node",
      format: "esm",
      packages: "external",
      outfile,
      logLevel: "warning",
    });
    process.once("exit", () => rmSync(outfile, { force: true }));
    return outfile;
  })();
  return bundled;
}

/** Arguments for a command that imports a TypeScript module of the test's: the source through tsx. */
export const tsxCli = (...args: string[]): string[] => ["--import", "tsx", CLI_SOURCE, ...args];
