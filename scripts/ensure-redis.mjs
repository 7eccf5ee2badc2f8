// Run before the Node tests: the BullMQ tests start their own redis-server, so Debian's must be installed.
// Installs it when missing and we are root, or fails with one line saying how (the tests never skip).
import { execFileSync, spawnSync } from "node:child_process";

const found = () => spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;

if (!found()) {
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (isRoot) {
    console.error("avalanche-web: redis-server not found; installing Debian's redis-server (apt-get)…");
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
    execFileSync("apt-get", ["install", "-y", "-qq", "redis-server"], { stdio: "inherit", env });
  }
  if (!found()) {
    console.error(
      "avalanche-web: no redis-server for the BullMQ tests: run `apt-get install redis-server` as root.",
    );
    process.exit(1);
  }
}
