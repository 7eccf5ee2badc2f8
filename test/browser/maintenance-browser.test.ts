// The maintenance contract on browser storage in real Chromium: OPFS data files, the IndexedDB catalog.
import { browserStorage, type Storage } from "../../src/index.js";
import { openCatalogDB } from "../../src/storage/browser/indexeddb-log.js";
import { ulid } from "../../src/util/ids.js";
import { describeMaintenance, soakAppends } from "../shared/maintenance-contract.js";

/** Bytes of the catalog's IndexedDB stores: log entries (JSON text) and checkpoints. */
async function catalogBytes(storage: Storage): Promise<number> {
  const db = await openCatalogDB((storage.descriptor as { name: string }).name);
  try {
    const entries = await db.getAll("log");
    const checkpoints = await db.getAll("checkpoints");
    return entries.reduce((n, e) => n + e.length, 0) + checkpoints.reduce((n, c) => n + c.byteLength, 0);
  } finally {
    db.close();
  }
}

describeMaintenance("browserStorage", {
  async fresh() {
    const name = `m${ulid()}`;
    return { open: (options = {}) => browserStorage({ name, persist: false, ...options }) };
  },
  catalogBytes,
  soakAppends: soakAppends(),
});
