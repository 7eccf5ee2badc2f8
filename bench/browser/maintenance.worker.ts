// Runs in a module Worker in headless Chromium: 1,000 appends of 10 rows on browserStorage, first with a
// data file each (OPFS sync access handle + IndexedDB), then inlined into the catalog entry, one after
// another; then inlined by 8 and 32 concurrent appenders (group commit). Posts ms per commit, and for the
// concurrent cases the wall time of all 1,000 as `<case>_wall`. For the sequential inlined case also when
// each commit and each piece of background work (flush, checkpoint, cleanup) ran, and what a checkpoint and
// a flush cost measured alone. With `variants`, only the sequential inlined case, in rounds with one kind
// of background work switched off at a time (see `variants`).
import * as ava from "../../src/index.js";
import { browserCheckpoints } from "../../src/storage/browser/browser-storage.js";
import { checkpointWriter } from "../../src/storage/browser/checkpoint-put-worker.js";
import { IndexedDbLog, openCatalogDB } from "../../src/storage/browser/indexeddb-log.js";
import { OpfsFileStore } from "../../src/storage/browser/opfs-file-store.js";
import { serializeState } from "../../src/storage/catalog/checkpoint.js";
import { LogCatalog } from "../../src/storage/catalog/log-catalog.js";
import { schemaFromJson } from "../../src/schema/arrow-json.js";
import { storedSchema } from "../../src/schema/provenance.js";
import { compactTable } from "../../src/table/compact.js";
import { encodeParquetFromIpc } from "../../src/parquet/parquet.js";
import { inlineBytes } from "../../src/table/inline-data.js";
import { flushInlinedRun } from "../../src/table/inline-flush-run.js";
import { spliceStreams } from "../../src/table/inline-splice.js";
import { makeBatch, schema } from "../data.js";
import { countCalls } from "../lib.js";

/** How many commits each case makes (the page's ?commits=, default 1,000). */
let COMMITS = 1_000;

/** IndexedDB transactions begun, by mode (what each commit and its background work cost the database). */
function countTransactions(): { counts: Record<string, number>; restore(): void } {
  const proto = IDBDatabase.prototype;
  const original = proto.transaction;
  const counts: Record<string, number> = { idb_readonly: 0, idb_readwrite: 0 };
  proto.transaction = function (this: IDBDatabase, ...args: Parameters<typeof original>) {
    counts[`idb_${args[1] ?? "readonly"}`]!++;
    return original.apply(this, args);
  } as typeof original;
  return { counts, restore: () => (proto.transaction = original) };
}

async function commits(
  inline: boolean | { flush: false },
  concurrency = 1,
  measureAlone = true,
): Promise<{
  latencies: number[];
  wallMs: number;
  counts: Record<string, number>;
  /** Each commit's [start, ms] and each kind of background work's [start, end], flattened. */
  spans: Record<string, number[]>;
  costs: Record<string, number[]>;
}> {
  const Bench = ava.defineNamespace({ name: "bench", tables: { points: ava.table({ schema, inline }) } });
  const name = `m${inline === true ? 1 : inline ? 2 : 0}c${concurrency}t${Date.now()}`;
  const storage = ava.browserStorage({ name, persist: false });
  const ns = await Bench.open({ storage });
  await ns.push();
  const rows = makeBatch(0, 10);
  const latencies: number[] = [];
  const logCalls = countCalls(IndexedDbLog.prototype, [
    "stage",
    "writeCheckpoint",
    "removeBefore",
    "removeCheckpoints",
  ]);
  const catalogCalls = countCalls(LogCatalog.prototype, ["cleanup"]);
  const fileCalls = countCalls(OpfsFileStore.prototype, ["write"]); // inlined: only the flushes write files
  const transactions = countTransactions();
  const counters = [transactions, logCalls, catalogCalls, fileCalls];
  const commitSpans: [number, number][] = [];
  let started = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < COMMITS) {
        started++;
        const t = performance.now();
        await ns.points.append(rows);
        latencies.push(performance.now() - t);
        commitSpans.push([t, performance.now() - t]);
      }
    }),
  );
  const wallMs = performance.now() - t0;
  for (const c of counters) c.restore();
  const flushes = "inlineFlush" in ns.points ? ns.points.inlineFlush.runs : 0;
  if ("inlineFlush" in ns.points) await ns.points.inlineFlush.idle();
  const spans = {
    commit: commitSpans.flat(),
    flush: fileCalls.spans.write!.flat(),
    checkpoint: logCalls.spans.writeCheckpoint!.flat(),
    cleanup: catalogCalls.spans.cleanup!.flat(),
  };
  const costs = concurrency === 1 && inline && measureAlone ? await backgroundCosts(storage, name) : {};
  return {
    latencies,
    wallMs,
    counts: Object.assign({ flushes }, ...[transactions, logCalls, catalogCalls].map((c) => c.counts)),
    spans,
    costs,
  };
}

/**
 * What one checkpoint of the state the appends left costs, measured alone (its serialization, the
 * IndexedDB put of its bytes, its size), and what one flush of 100 inlined appends costs on a table
 * that does not flush by itself.
 */
async function backgroundCosts(storage: ava.Storage, name: string): Promise<Record<string, number[]>> {
  const state = await storage.catalog.current();
  const costs: Record<string, number[]> = {
    ckpt_serialize: [],
    ckpt_put: [],
    ckpt_bytes: [],
    flush: [],
    flush_encode: [],
    flush_decode: [],
    flush_wasm: [],
  };
  const db = await openCatalogDB(name);
  for (let i = 0; i < 5; i++) {
    let t = performance.now();
    const bytes = serializeState(state, Date.now());
    costs.ckpt_serialize!.push(performance.now() - t);
    costs.ckpt_bytes!.push(bytes.length);
    t = performance.now();
    await db.put("checkpoints", bytes, -1 - i); // below every version: never read as the newest
    costs.ckpt_put!.push(performance.now() - t);
  }
  db.close();
  const Unflushed = ava.defineNamespace({
    name: "bench",
    tables: { points: ava.table({ schema, inline: { flush: false } }) },
  });
  const flushing = await Unflushed.open({
    storage: ava.browserStorage({ name: `${name}-flush`, persist: false }),
  });
  await flushing.push();
  for (let i = 0; i < 5; i++) {
    for (let n = 0; n < 100; n++) await flushing.points.append(makeBatch(n * 10, 10));
    // The flush's encode alone (splice of the payloads' IPC + parquet-wasm + merged stats), then all of it.
    const entry = (await flushing.storage.catalog.current()).tables["bench.points"]!;
    const stored = storedSchema(schemaFromJson(entry.schema), entry.rowLineage);
    const run = entry.history.liveFiles.filter((f) => f.inline !== undefined);
    let t = performance.now();
    await flushInlinedRun(entry, stored, run);
    costs.flush_encode!.push(performance.now() - t);
    // Its two parts: the payloads' base64 decode + CRC + splice, and parquet-wasm's encode of the stream.
    t = performance.now();
    const ipc = spliceStreams(
      run.map((f) => ({ bytes: inlineBytes(f), rows: f.rowCount })),
      stored,
      () => true,
    )!;
    costs.flush_decode!.push(performance.now() - t);
    t = performance.now();
    await encodeParquetFromIpc(ipc, stored);
    costs.flush_wasm!.push(performance.now() - t);
    t = performance.now();
    await compactTable(flushing.storage, "bench", "points", { flush: true });
    costs.flush!.push(performance.now() - t);
  }
  return costs;
}

/**
 * Where a sequential appender's wall time goes, by switching one kind of background work off at a time
 * (interleaved rounds, so load drifts hit every variant alike): `put` skips each checkpoint's IndexedDB
 * put (its serialization stays), `cleanup` skips the flush's catalog cleanup, `flush` never flushes (the
 * checkpoints then carry every payload), `growth05` checkpoints as often as before this session (entries
 * of half a checkpoint's size), `atob` decodes payloads without the engine's Uint8Array.fromBase64,
 * `onthread` puts checkpoints from the appender's thread instead of the helper Worker, `before` all
 * three (the browser catalog as it was before them). Also how long the Worker's thread was blocked (timer
 * lateness over 4 ms: CPU — encodes, serialization, GC — as against waiting on IndexedDB).
 */
async function variants(rounds: number, only: readonly string[]): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = {};
  const push = (k: string, v: number) => {
    out[k] ??= [];
    out[k].push(v);
  };
  const log = IndexedDbLog.prototype;
  const catalog = LogCatalog.prototype;
  const { writeCheckpoint } = log;
  const { cleanup } = catalog;
  const { growth } = browserCheckpoints;
  const { fromBase64 } = Uint8Array as { fromBase64?: unknown };
  // One unmeasured run first: the Worker's first run is its cold start (JIT), ~0.6× the later ones, and it
  // fell to whichever variant came first (a comparison of background work, not of warm-up). And each round
  // starts with the next variant: a run also pays for what the one before it left running (its last
  // checkpoint's put, the browser compacting its database), which fell on the same variant every round.
  await commits(true, 1, false);
  for (let r = 0; r < rounds; r++) {
    for (const variant of only.map((_, i) => only[(i + r) % only.length]!)) {
      if (variant === "put") log.writeCheckpoint = async () => {};
      if (variant === "cleanup") catalog.cleanup = async () => [];
      const before = variant === "before"; // all three of this session's changes off
      if (before || variant === "growth05") browserCheckpoints.growth = 0.5;
      if (before || variant === "onthread")
        Object.defineProperty(checkpointWriter(), "available", { value: false, configurable: true });
      if (before || variant === "atob")
        Object.defineProperty(Uint8Array, "fromBase64", { value: undefined, configurable: true });
      const blocked = blockedTime();
      try {
        const run = await commits(variant === "flush" ? { flush: false } : true, 1, false);
        push(`v_${variant}_wall`, run.wallMs);
        push(`v_${variant}_median`, median(run.latencies));
        push(
          `v_${variant}_slow10`,
          run.latencies.filter((x) => x > 10).reduce((a, b) => a + b, 0),
        );
        push(`v_${variant}_blocked`, blocked.stop());
      } finally {
        log.writeCheckpoint = writeCheckpoint;
        catalog.cleanup = cleanup;
        browserCheckpoints.growth = growth;
        delete (checkpointWriter() as { available?: boolean }).available; // the class's getter again
        Object.defineProperty(Uint8Array, "fromBase64", {
          value: fromBase64,
          configurable: true,
          writable: true,
        });
      }
    }
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/** Sums how late a 0 ms timer chain fires beyond its 4 ms clamp, counting only delays over 4 ms. */
function blockedTime(): { stop(): number } {
  let total = 0;
  let last = performance.now();
  let on = true;
  const tick = () => {
    const now = performance.now();
    const late = now - last - 4;
    if (late > 4) total += late;
    last = now;
    if (on) setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  return {
    stop() {
      on = false;
      return total;
    },
  };
}

self.onmessage = async (
  e: MessageEvent<{ commits?: number; variants?: number; only?: string; rounds?: number }>,
) => {
  COMMITS = e.data?.commits ?? COMMITS;
  try {
    if (e.data?.variants) {
      const only = e.data.only?.split(",") ?? ["base", "put", "cleanup", "flush"];
      postMessage({ ok: true, timings: await variants(e.data.variants, only) });
      return;
    }
    const files = (await commits(false)).latencies;
    const one = await commits(true);
    const timings: Record<string, number[]> = { files, inline: one.latencies, inline_wall: [one.wallMs] };
    // More rounds of the one appender, each on a new database: a single run swings with the machine.
    for (let r = 1; r < (e.data?.rounds ?? 1); r++)
      timings.inline_wall!.push((await commits(true, 1, false)).wallMs);
    for (const [k, v] of Object.entries(one.counts)) timings[`inline_count_${k}`] = [v];
    for (const [k, v] of Object.entries(one.costs)) timings[`inline_cost_${k}`] = v;
    for (const [k, v] of Object.entries(one.spans)) timings[`inline_span_${k}`] = v;
    for (const c of [8, 32]) {
      const { latencies, wallMs } = await commits(true, c);
      timings[`inline_c${c}`] = latencies;
      timings[`inline_c${c}_wall`] = [wallMs];
    }
    postMessage({ ok: true, timings });
  } catch (err) {
    postMessage({ ok: false, error: String((err as Error).stack ?? err) });
  }
};
