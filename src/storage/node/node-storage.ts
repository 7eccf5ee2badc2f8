// `nodeStorage({ root })`: data files and a catalog log under one folder, safe across processes.
import { resolve } from "node:path";
import { LogCatalog } from "../catalog/log-catalog.js";
import type { Storage } from "../types.js";
import { NodeCatalogLog } from "./node-catalog-log.js";
import { NodeFileStore } from "./node-file-store.js";

export interface NodeStorageOptions {
  /** The folder that holds everything; created on first write. */
  root: string;
  /**
   * fsync data files and catalog entries before a commit is acknowledged, so a commit survives power loss,
   * not only a crashed process (which needs no fsync). Default true.
   */
  fsync?: boolean;
  /**
   * For subscribe(): how often (ms) to look for other processes' commits besides watching the catalog
   * folder with fs.watch, which some filesystems do not support. Default 1000.
   */
  pollMs?: number;
}

export function nodeStorage({ root, fsync = true, pollMs = 1000 }: NodeStorageOptions): Storage {
  const abs = resolve(root);
  return {
    descriptor: { kind: "node", root: abs },
    files: new NodeFileStore(abs, fsync),
    catalog: new LogCatalog(new NodeCatalogLog(abs, fsync, pollMs)),
  };
}
