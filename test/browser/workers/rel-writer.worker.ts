// A module Worker that appends to `rel.batches` on a browser storage, for the durability, concurrency and
// crash tests. It posts a message after every commit. With `holdAfterWrite`, its second data file is
// written and then the commit never comes: the page terminates it in exactly that window.
import { browserStorage } from "../../../src/index.js";
import { batchRows, batchesOf, Rel } from "../../shared/rel.js";

export type WriterRequest =
  | { cmd: "append"; name: string; writer: string; batches: number; rows: number; holdAfterWrite?: boolean }
  | { cmd: "inspect"; name: string };

self.onmessage = async (event: MessageEvent<WriterRequest>) => {
  const req = event.data;
  try {
    const storage = browserStorage({ name: req.name, persist: false });
    const ns = await Rel.open({ storage });
    if (req.cmd === "inspect") {
      const history = await ns.batches.history();
      const rows = await ns.batches.read();
      postMessage({ snapshots: history.length, rows: rows.numRows, batches: batchesOf(rows).size });
      return;
    }
    if (req.holdAfterWrite) {
      let writes = 0;
      const write = storage.files.write.bind(storage.files);
      storage.files.write = async (path, bytes) => {
        await write(path, bytes);
        if (++writes === 2) {
          postMessage({ written: path });
          await new Promise(() => {}); // never commits
        }
      };
    }
    await ns.push();
    for (let b = 0; req.batches === 0 || b < req.batches; b++) {
      await ns.batches.append(batchRows(req.writer, b, req.rows));
      postMessage({ committed: b });
    }
    postMessage({ done: true });
  } catch (err) {
    postMessage({ error: `${(err as Error).name}: ${(err as Error).message}` });
  }
};
