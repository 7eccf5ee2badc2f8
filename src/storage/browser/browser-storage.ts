// `browserStorage({ name })`: the default storage in a browser tab or Worker. Data files in OPFS under
// `avalanche/<name>/`, the catalog in the IndexedDB database `avalanche:<name>`. Nothing is touched until
// first use, so the module imports anywhere; any context of the origin reopens it by name.
import { AvaError } from "../../errors.js";
import { checkName } from "../../util/names.js";
import { LogCatalog } from "../catalog/log-catalog.js";
import type { Storage } from "../types.js";
import type { AutoMaintenanceOptions } from "../../table/maintenance-runner.js";
import { type Durability, IndexedDbLog, openCatalogDB } from "./indexeddb-log.js";
import { OpfsFileStore } from "./opfs-file-store.js";

/** The browser catalog's checkpoint cadence (see LogCatalogOptions); an object so the bench can compare. */
export const browserCheckpoints = { growth: 1 };

export interface BrowserStorageOptions {
  /** Names the storage: the OPFS folder and the IndexedDB database. */
  name: string;
  /** Ask the browser to keep this origin's data under storage pressure (navigator.storage.persist()). Default true. */
  persist?: boolean;
  /** IndexedDB commit durability; "strict" waits for the disk. Default: the browser's. */
  durability?: Durability;
  /** The clock of snapshots, retention and grace periods (default Date.now); tests fast-forward it. */
  now?: () => number;
  /** `{ auto: true, ... }`: background maintenance of every table (see AutoMaintenanceOptions). */
  maintenance?: AutoMaintenanceOptions;
}

export interface BrowserStorage extends Storage {
  readonly descriptor: { kind: "browser"; name: string };
  /** Whether the browser granted persistence (requested on first use unless `persist: false`). */
  persisted(): Promise<boolean>;
  /** The origin's usage and quota, as the browser estimates them. */
  estimate(): Promise<StorageEstimate>;
}

function platform(): StorageManager {
  const storage = typeof navigator === "undefined" ? undefined : navigator.storage;
  if (typeof storage?.getDirectory !== "function" || typeof indexedDB === "undefined") {
    throw new AvaError(
      "UNAVAILABLE",
      "browserStorage needs OPFS and IndexedDB: use it in a browser page or Worker",
    );
  }
  return storage;
}

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => {
    value ??= make();
    return value;
  };
}

export function browserStorage({
  name,
  persist = true,
  durability = "default",
  now,
  maintenance,
}: BrowserStorageOptions): BrowserStorage {
  checkName("storage", name);
  const persistence = once(async () => {
    const manager = platform();
    // persist() may prompt or refuse (headless Chromium answers false); either answer is final for now.
    if (persist && typeof manager.persist === "function") return manager.persist().catch(() => false);
    return typeof manager.persisted === "function" ? manager.persisted() : false;
  });
  // Persistence is requested alongside first use; its answer (or failure) is read through persisted().
  const requestPersistence = () => void persistence().catch(() => {});
  const root = once(async () => {
    requestPersistence();
    const top = await platform().getDirectory();
    return (await top.getDirectoryHandle("avalanche", { create: true })).getDirectoryHandle(name, {
      create: true,
    });
  });
  const db = once(() => {
    requestPersistence();
    platform();
    return openCatalogDB(name);
  });
  return {
    descriptor: { kind: "browser", name },
    files: new OpfsFileStore(root),
    // A sequential appender in a Worker must not carry each checkpoint's IndexedDB write (see the option).
    // A checkpoint once the entries since the last one weigh as much as it (not half): in IndexedDB a
    // put of the whole state (0.3–0.6 MB while inlined rows wait for a flush) slowed the next commits well
    // beyond its own time; opening then replays at most one state's worth of entries.
    catalog: new LogCatalog(new IndexedDbLog(db, durability, name), {
      checkpointInBackground: true,
      checkpointGrowth: browserCheckpoints.growth,
      ...(now ? { now } : {}),
    }),
    ...(now ? { now } : {}),
    ...(maintenance ? { maintenance } : {}),
    persisted: persistence,
    estimate: () => platform().estimate(),
  };
}
