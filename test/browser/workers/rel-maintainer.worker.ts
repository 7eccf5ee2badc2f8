// A module Worker that maintains `rel.batches` on a browser storage, for the maintenance tests: compaction
// rounds racing other Workers' appends, a compaction held between writing its merged file and committing
// (the page terminates it there), an expiry held after deleting two of the files that left (terminated
// there too), a catalog cleanup held between two of its chunks of log deletions (terminated there), and
// one background-maintenance run under the storage's Web Lock.
import { browserStorage, isAvaError, startMaintenance } from "../../../src/index.js";
import { Rel } from "../../shared/rel.js";

export type MaintainerRequest =
  | { cmd: "compact"; name: string; rounds: number }
  | { cmd: "hold-compact"; name: string }
  | { cmd: "hold-delete"; name: string }
  | { cmd: "hold-cleanup"; name: string }
  | { cmd: "run-once"; name: string };

self.onmessage = async (event: MessageEvent<MaintainerRequest>) => {
  const req = event.data;
  try {
    const storage = browserStorage({ name: req.name, persist: false });
    const ns = await Rel.open({ storage });
    if (req.cmd === "hold-compact") {
      const write = storage.files.write.bind(storage.files);
      storage.files.write = async (path, bytes) => {
        await write(path, bytes);
        postMessage({ written: path });
        await new Promise(() => {}); // never commits
      };
      await ns.batches.compact();
      return;
    }
    if (req.cmd === "hold-delete") {
      let deletes = 0;
      const remove = storage.files.delete.bind(storage.files);
      storage.files.delete = async (path) => {
        await remove(path);
        if (++deletes < 2) return;
        postMessage({ deleted: deletes });
        await new Promise(() => {}); // never tells the catalog the files are gone
      };
      const policy = { retain: { maxAgeMs: 0, minSnapshots: 1 }, graceMs: 0, compact: false as const };
      const result = await ns.maintain(policy);
      postMessage({ error: `maintain() deleted without stopping: ${JSON.stringify(result)}` });
      return;
    }
    if (req.cmd === "hold-cleanup") {
      // Catalog cleanup deletes log entries a chunk at a time, pausing on a 0 ms timer between chunks:
      // the first pause after the first chunk never ends (the page terminates the Worker there).
      const pause = globalThis.setTimeout;
      globalThis.setTimeout = ((fn: () => void, ms?: number) => {
        if (ms) return pause(fn, ms);
        postMessage({ held: true });
        return 0;
      }) as typeof setTimeout;
      const removed = await storage.catalog.cleanup!(0);
      postMessage({ error: `cleanup() removed ${removed.length} without pausing` });
      return;
    }
    if (req.cmd === "run-once") {
      const runner = startMaintenance(storage, undefined, {
        auto: true,
        intervalMs: 3_600_000,
        retain: false,
      });
      const result = await runner.runNow();
      await runner.stop();
      postMessage({ done: true, ran: result !== undefined });
      return;
    }
    let compactions = 0;
    let conflicts = 0;
    for (let i = 0; i < req.rounds; i++) {
      try {
        if ((await ns.batches.compact({ minFiles: 2 })).snapshotId) compactions++;
      } catch (err) {
        if (!isAvaError(err, "COMMIT_CONFLICT")) throw err;
        conflicts++;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    postMessage({ done: true, compactions, conflicts });
  } catch (err) {
    postMessage({ error: `${(err as Error).name}: ${(err as Error).message}` });
  }
};
