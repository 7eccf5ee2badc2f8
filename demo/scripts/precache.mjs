// After `vite build`: lists every file of dist/ for the service worker to precache (dist/precache.json),
// with a version that changes whenever any file does, so a new build gets a new cache.
import { createHash } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";

const dist = new URL("../dist/", import.meta.url).pathname;
const SKIP = new Set(["sw.js", "precache.json"]);

async function walk(dir) {
  const out = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(path)));
    else out.push(path);
  }
  return out;
}

const files = (await walk(dist))
  .map((p) => relative(dist, p))
  .filter((p) => !SKIP.has(p))
  .sort();
const hash = createHash("sha256");
for (const f of files) hash.update(f).update(await readFile(join(dist, f)));
const version = hash.digest("hex").slice(0, 16);
// "./" is the app shell for navigations; paths relative to the worker's scope
await writeFile(join(dist, "precache.json"), JSON.stringify({ version, files: ["./", ...files] }, null, 1));
console.log(`precache.json: ${files.length} files, version ${version}`);
