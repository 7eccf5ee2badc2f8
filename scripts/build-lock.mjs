// One `npm run build` (and `npm pack`) at a time in this checkout: tests that pack the package run in
// parallel vitest workers, and two tsc runs writing dist/ at once can hand `npm pack` a half-written file.
import { mkdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";

const STALE_MS = 10 * 60_000;

/** Runs `fn` holding the repository's build lock (a directory, created atomically). */
export async function withBuildLock(repo, fn) {
  const lock = join(repo, "node_modules", ".ava-build-lock");
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch (err) {
      if (err.code !== "EEXIST") throw err;
      // a lock left by a killed run is taken over after STALE_MS
      const age = Date.now() - (await stat(lock).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
      if (age > STALE_MS) await rm(lock, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}
