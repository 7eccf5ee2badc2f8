// Run before the browser tests: installs Debian's Chromium when it is missing and we are root, or fails
// with one line saying how. The browser project is never skipped silently.
import { execFileSync } from "node:child_process";
import { chromiumPath } from "./chromium-path.mjs";

if (!chromiumPath()) {
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (isRoot) {
    console.error(
      "avalanche-web: Chromium not found; installing Debian's chromium (apt-get, about a minute)…",
    );
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
    execFileSync("apt-get", ["install", "-y", "-qq", "chromium"], { stdio: "inherit", env });
  }
  if (!chromiumPath()) {
    console.error(
      "avalanche-web: no Chromium for the browser tests: run `apt-get install chromium` as root or set CHROMIUM_PATH.",
    );
    process.exit(1);
  }
}
