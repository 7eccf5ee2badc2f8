// The maintenance contract on browser storage in real Chromium: OPFS data files, the IndexedDB catalog.
import { browserStorage, type Storage } from "../../src/index.js";
import { openCatalogDB } from "../../src/storage/browser/indexeddb-log.js";
import { ulid } from "../../src/util/ids.js";
import { describeMaintenance, soakAppends } from "../shared/maintenance-contract.js";

/** Bytes of the catalog's IndexedDB stores: log entries (JSON text) and checkpoints (whole or in pieces). */
async function catalogBytes(storage: Storage): Promise<number> {
  const db = await openCatalogDB((storage.descriptor as { name: string }).name);
  try {
    const entries = await db.getAll("log");
    // A large checkpoint's record names its pieces, which hold its bytes.
    const checkpoints = [...(await db.getAll("checkpoints")), ...(await db.getAll("checkpointParts"))];
    const bytes = (c: (typeof checkpoints)[number]) => (c instanceof Uint8Array ? c.byteLength : 0);
    return entries.reduce((n, e) => n + e.length, 0) + checkpoints.reduce((n, c) => n + bytes(c), 0);
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
