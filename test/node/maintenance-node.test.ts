// The maintenance contract on Node storage (files + a log of commit files, fsync on).
import { mkdtemp, readdir, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Storage } from "../../src/index.js";
import { nodeStorage } from "../../src/node.js";
import { describeMaintenance } from "../shared/maintenance-contract.js";

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? await folderBytes(path) : (await stat(path)).size;
  }
  return total;
}

describeMaintenance("nodeStorage", {
  async fresh() {
    const root = await mkdtemp(join(tmpdir(), "ava-maint-"));
    return { open: (options = {}) => nodeStorage({ root, ...options }) };
  },
  catalogBytes: (storage: Storage) =>
    folderBytes(join((storage.descriptor as { root: string }).root, "_catalog")),
  // The full soak of the issue (20,000 appends) runs with AVA_SOAK_APPENDS=20000; npm test runs 600.
  soakAppends: Number(process.env.AVA_SOAK_APPENDS ?? 600),
});
