// Installs the demo as a user's app gets the package: builds and packs this repository, then
// `npm install`s the tarball (and the demo's other pinned dependencies) into demo/node_modules.
// `npm run demo` and `npm run demo:build` run it first, so the demo never sees ../src or an unbuilt dist/.
import { execFileSync } from "node:child_process";
import { mkdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { withBuildLock } from "./build-lock.mjs";

const repo = new URL("..", import.meta.url).pathname;
const demo = join(repo, "demo");
const pack = join(demo, ".pack");
const npm = (cwd, args) =>
  execFileSync("npm", args, { cwd, stdio: ["ignore", "pipe", "inherit"] }).toString();

await withBuildLock(repo, async () => {
  npm(repo, ["run", "build", "--silent"]);
  await rm(pack, { recursive: true, force: true });
  await mkdir(pack, { recursive: true });
  const [{ filename }] = JSON.parse(
    npm(repo, ["pack", "--ignore-scripts", "--json", "--pack-destination", pack]),
  );
  await rename(join(pack, filename), join(pack, "avalanche-web.tgz"));
});
// The tarball's name never changes, so drop what npm and Vite remember of the previous one.
for (const stale of ["node_modules/avalanche-web", "node_modules/.package-lock.json", "node_modules/.vite"])
  await rm(join(demo, stale), { recursive: true, force: true });
npm(demo, [
  "install",
  "--no-package-lock",
  "--prefer-offline",
  "--no-audit",
  "--no-fund",
  "--loglevel=error",
]);
