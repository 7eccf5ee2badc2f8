// Flushing inlined small appends into Parquet, by size or age, without anyone calling maintain(): after a
// commit leaves a table with `maxRows` inlined rows (or its oldest inlined append `maxAgeMs` old), a flush
// starts in the background of that context — one at a time per table and storage — while the append that
// triggered it returns at once. A flush is a "compact" snapshot that changes no visible row; the snapshots
// that added the rows then keep only their slice of the flushed file (see history.withFlushed), so the
// rows leave the catalog and its checkpoints stop growing with them; then the log entries a checkpoint
// covers are cleaned up after the grace period, as maintain() does. Across tabs, Workers and processes it
// is an optimistic commit like maintain()'s: two that race lose nothing, the loser retries on the new
// state and finds nothing left to flush. A failed flush is kept in its status, never thrown into the app
// (the append committed; the next commit tries again).
import { AvaError, describeValue } from "../errors.js";
import type { TableHistory } from "../storage/catalog/history.js";
import { tableKey } from "../storage/catalog/model.js";
import { clockOf, type Storage } from "../storage/types.js";
import { ulidTimeMs } from "../util/ids.js";
import { getOrCreate } from "../util/get-or-create.js";
import { compactTable } from "./compact.js";

export interface FlushOptions {
  /**
   * Inlined appends are flushed to a data file once they hold this many rows. Default 1000: ~100 telemetry
   * appends of 10 rows, about 0.5 MB of Arrow IPC in the catalog at most, and a flushed file big enough that
   * tiered compaction rarely has to rewrite it soon; a flush costs about one small append, so ~1% extra work.
   */
  maxRows?: number;
  /**
   * …or once the oldest is this old (storage clock), checked when the table is committed to. Default 10
   * minutes: a slow writer's rows leave the catalog within minutes, but a flush is not paid for every
   * few appends.
   */
  maxAgeMs?: number;
}

export const FLUSH_DEFAULTS: Required<FlushOptions> = { maxRows: 1000, maxAgeMs: 600_000 };

/**
 * maintain()'s default grace period, which a flush also keeps when it cleans up the catalog log: entries a
 * checkpoint at least this old covers are removed (a reader that fell further behind reopens from that
 * checkpoint). Without it the log — each inlined append's entry holds its rows — would grow with the
 * rows even once they were flushed, in a table nobody maintains.
 */
export const DEFAULT_GRACE_MS = 3_600_000;

export function checkFlushOptions(what: string, flush: unknown): void {
  if (flush === false) return;
  if (typeof flush !== "object" || flush === null)
    throw new AvaError(
      "INVALID_ARGUMENT",
      `${what}: flush must be an object or false, got ${describeValue(flush)}`,
    );
  for (const [k, v] of Object.entries(flush)) {
    if (!(k in FLUSH_DEFAULTS))
      throw new AvaError("INVALID_ARGUMENT", `${what}: flush.${k} is not an option (maxRows, maxAgeMs)`);
    if (!(typeof v === "number" && v >= 0))
      throw new AvaError("INVALID_ARGUMENT", `${what}: flush.${k} must be ≥ 0, got ${describeValue(v)}`);
  }
}

/** Whether a table's inlined appends are due for a flush (by rows or by the age of the oldest). */
export function flushDue(storage: Storage, history: TableHistory, options: FlushOptions): boolean {
  const { maxRows, maxAgeMs } = { ...FLUSH_DEFAULTS, ...options };
  const { rows, oldest } = history.inlined();
  if (rows === 0 || oldest === undefined) return false;
  if (rows >= maxRows) return true;
  // An inlined file is named by its snapshot's id, a ULID minted at commit time (storage clock).
  const born = ulidTimeMs(oldest.slice(oldest.lastIndexOf("/") + 1).split(".")[0]!) ?? 0;
  return clockOf(storage) - born >= maxAgeMs;
}

/** A table's background flushes in this context. */
export interface InlineFlushStatus {
  /** Flushes that committed. */
  readonly runs: number;
  /** The error of the last flush that failed (the next commit to the table tries again); undefined after a success. */
  readonly lastError: unknown;
  /** Resolves once no flush of the table is running in this context (for tests and orderly shutdown). */
  idle(): Promise<void>;
}

interface Flusher {
  runs: number;
  lastError: unknown;
  running: Promise<void> | undefined;
}

const flushers = new WeakMap<Storage, Map<string, Flusher>>();

function flusherOf(storage: Storage, key: string): Flusher {
  const byTable = getOrCreate(flushers, storage, () => new Map<string, Flusher>());
  return getOrCreate(byTable, key, () => ({ runs: 0, lastError: undefined, running: undefined }));
}

/** Whether a flush is due by the state this context holds, judged without reading the catalog. */
function dueNow(storage: Storage, namespace: string, name: string, options: FlushOptions): boolean {
  const table = storage.catalog.peek()?.tables[tableKey(namespace, name)];
  return table !== undefined && flushDue(storage, table.history, options);
}

/**
 * Called after each commit to a table that inlines: starts a background flush when one is due and none
 * of this table is running. Never waits and never throws.
 */
export function flushInlinedIfDue(
  storage: Storage,
  namespace: string,
  name: string,
  options: FlushOptions | false,
): void {
  if (options === false) return;
  const flusher = flusherOf(storage, tableKey(namespace, name));
  if (flusher.running || !dueNow(storage, namespace, name, options)) return;
  const run = async (): Promise<void> => {
    // Appends that landed while a flush ran may have made another one due: flush until none is.
    do {
      try {
        const done = await compactTable(storage, namespace, name, { flush: true });
        flusher.runs++;
        flusher.lastError = undefined;
        if (done.filesRemoved === 0) return; // another context flushed them first
        await storage.catalog.cleanup?.(DEFAULT_GRACE_MS, { checkpoint: false });
      } catch (err) {
        flusher.lastError = err;
        return; // the next commit to the table tries again
      }
    } while (dueNow(storage, namespace, name, options));
  };
  flusher.running = run().finally(() => {
    flusher.running = undefined;
  });
}

export function inlineFlushStatus(storage: Storage, namespace: string, name: string): InlineFlushStatus {
  const flusher = flusherOf(storage, tableKey(namespace, name));
  return {
    get runs() {
      return flusher.runs;
    },
    get lastError() {
      return flusher.lastError;
    },
    async idle() {
      while (flusher.running) await flusher.running;
    },
  };
}
