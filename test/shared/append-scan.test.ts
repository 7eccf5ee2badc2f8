// append_scan streams, exactly once: a consumer's progress commits in the same catalog commit as its
// appends, so a failure leaves neither, a retry takes the same snapshot, and racing runs cannot both
// commit one snapshot. Run in Node and in Chromium (memory storage; workers and files in the executor suites).
import { describe, expect, it } from "vitest";
import * as ava from "../../src/index.js";
import { chunking, chunksOf, draining, flaky, Library, pickyFlow, racing } from "./append-scan-flows.js";
import { expectAvaError } from "./fixtures.js";

async function library(snapshots: number, text = (i: number) => `document number ${i}`) {
  const storage = ava.memoryStorage();
  const ns = await Library.open({ storage });
  await ns.push();
  for (let i = 0; i < snapshots; i++) await ns.documents.append([{ doc_id: `d${i}`, text: text(i) }]);
  return { storage, ns };
}

/** Every (doc_id, chunk) of the chunks table, sorted, and whether any appears twice. */
async function chunkKeys(ns: Awaited<ReturnType<typeof Library.open>>) {
  const rows = await ns.chunks.scan({ columns: ["doc_id", "chunk"] }).toObjects();
  const keys = rows.map((r) => `${r.doc_id}/${r.chunk}`);
  return { keys: [...keys].sort(), unique: new Set(keys).size === keys.length };
}

async function expectedKeys(ns: Awaited<ReturnType<typeof Library.open>>) {
  return chunksOf(await ns.documents.read())
    .map((c) => `${c.doc_id}/${c.chunk}`)
    .sort();
}

describe("append_scan", () => {
  it("processes 100 appended snapshots one a run, each exactly once, then gives an empty table", async () => {
    const { storage, ns } = await library(100);
    for (let run = 0; run < 100; run++) {
      const { value } = await chunking.run({ storage }).result();
      expect(value).toMatchObject({ documents: 1 });
    }
    const last = await chunking.run({ storage }).result();
    expect(last.value).toEqual({ documents: 0, chunks: 0 }); // nothing pending: an empty table
    const { keys, unique } = await chunkKeys(ns);
    expect(unique).toBe(true);
    expect(keys).toEqual(await expectedKeys(ns));
    expect((await ava.streamState(storage, Library.tables.documents, "documents_to_chunks")).position).toBe(
      100,
    );
  });

  it("keeps every row exactly once when the consumer fails after appending on 30% of its runs", async () => {
    const { storage, ns } = await library(200);
    let seed = 12345;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    let failures = 0;
    for (let guard = 0; guard < 2000; guard++) {
      const before = (await ava.streamState(storage, Library.tables.documents, "flaky")).position;
      if (before === 200) break;
      const fail = random() < 0.3;
      const handle = flaky.run({ storage, input: { fail } });
      if (fail) {
        failures++;
        await expectAvaError(handle.result(), "RUN_FAILED", /injected fault/);
      } else await handle.result();
    }
    const state = await ava.streamState(storage, Library.tables.documents, "flaky");
    expect(state.position).toBe(200);
    expect(state.quarantined).toEqual([]);
    expect(Object.values(state.attempts).reduce((a, b) => a + b, 0)).toBe(failures); // every failure counted
    expect(failures).toBeGreaterThan(30);
    const { keys, unique } = await chunkKeys(ns);
    expect(unique).toBe(true);
    expect(keys).toEqual(await expectedKeys(ns));
  });

  it("quarantines a snapshot after maxAttempts failures and moves past it, visibly", async () => {
    const { storage, ns } = await library(5, (i) => (i === 2 ? "poison pill" : `document ${i}`));
    const poisoned = (await ns.documents.history())[2]!.id;
    for (let run = 0; run < 10; run++)
      await pickyFlow
        .run({ storage })
        .result()
        .catch(() => {});
    const state = await ava.streamState(storage, Library.tables.documents, "picky");
    expect(state).toMatchObject({ position: 5, quarantined: [poisoned], attempts: { [poisoned]: 3 } });
    const docs = new Set((await ns.chunks.scan({ columns: ["doc_id"] }).toObjects()).map((r) => r.doc_id));
    expect([...docs].sort()).toEqual(["d0", "d1", "d3", "d4"]);
  });

  it("never lets two racing runs both commit one snapshot", async () => {
    const { storage, ns } = await library(20);
    let conflicts = 0;
    for (let round = 0; round < 100; round++) {
      if ((await ava.streamState(storage, Library.tables.documents, "racing")).position === 20) break;
      const results = await Promise.allSettled([
        racing.run({ storage }).result(),
        racing.run({ storage }).result(),
      ]);
      for (const r of results)
        if (r.status === "rejected") {
          expect(ava.isAvaError(r.reason, "RUN_FAILED")).toBe(true);
          expect(String((r.reason as ava.RunError).result.nodes.slow_chunks!.error!.message)).toMatch(
            /another run consumed those snapshots first/,
          );
          conflicts++;
        }
    }
    const { keys, unique } = await chunkKeys(ns);
    expect(unique).toBe(true);
    expect(keys).toEqual(await expectedKeys(ns));
    expect(conflicts).toBeGreaterThan(0); // they did race
  });

  it("drains up to maxSnapshots a run", async () => {
    const { storage } = await library(25);
    const sizes: unknown[] = [];
    for (let run = 0; run < 4; run++) sizes.push((await draining.run({ storage }).result()).value);
    expect(sizes).toEqual([10, 10, 5, 0]);
  });

  it("refuses bad keys and options when the step is defined", async () => {
    await expectAvaError(
      () => ava.stream(Library.tables.documents, { mode: "append_scan", key: "Bad-Key" }),
      "INVALID_ARGUMENT",
      /key matching/,
    );
    await expectAvaError(
      () => ava.stream(Library.tables.documents, { mode: "append_scan" }),
      "INVALID_ARGUMENT",
      /needs a key/,
    );
    await expectAvaError(
      () => ava.stream(Library.tables.documents, { key: "k" }),
      "INVALID_ARGUMENT",
      /takes no key/,
    );
    await expectAvaError(
      () => ava.stream(Library.tables.documents, { mode: "append_scan", key: "k", maxSnapshots: 0 }),
      "INVALID_ARGUMENT",
      /maxSnapshots/,
    );
  });
});
