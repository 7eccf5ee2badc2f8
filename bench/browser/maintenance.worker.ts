// Runs in a module Worker in headless Chromium: 1,000 appends of 10 rows on browserStorage, first with a
// data file each (OPFS sync access handle + IndexedDB), then inlined into the catalog entry. Posts ms.
import * as ava from "../../src/index.js";
import { makeBatch, schema } from "../data.js";

const COMMITS = 1_000;

async function commits(inline: boolean): Promise<number[]> {
  const Bench = ava.defineNamespace({ name: "bench", tables: { points: ava.table({ schema, inline }) } });
  const ns = await Bench.open({
    storage: ava.browserStorage({ name: `m${inline}${Date.now()}`, persist: false }),
  });
  await ns.push();
  const rows = makeBatch(0, 10);
  const out: number[] = [];
  for (let i = 0; i < COMMITS; i++) {
    const t0 = performance.now();
    await ns.points.append(rows);
    out.push(performance.now() - t0);
  }
  return out;
}

self.onmessage = async () => {
  try {
    const files = await commits(false);
    const inline = await commits(true);
    postMessage({ ok: true, timings: { files, inline } });
  } catch (err) {
    postMessage({ ok: false, error: String((err as Error).stack ?? err) });
  }
};
