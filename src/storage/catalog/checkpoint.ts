// Checkpoints: the whole catalog state at a version, written every so many commits so that opening a
// catalog reads one file and the log entries after it, not the whole log.
import { crc32 } from "../../avro/crc32.js";
import { historyLine } from "./checkpoint-history-line.js";
import { type HistoryBase, TableHistory } from "./history.js";
import type {
  DoomedFile,
  NamespaceEntry,
  OutboxState,
  RunRecord,
  Snapshot,
  StreamState,
  TableMeta,
} from "./model.js";
import type { MaintenanceLease } from "./retention.js";
import { RunLog } from "./run-log.js";
import type { CatalogState, ScheduleState, TableState } from "./state.js";
import {
  arrayOf,
  checked,
  checkpointHeader,
  recordOf,
  runRecord,
  snapshot as snapshotShape,
} from "./validate.js";

// A checkpoint is UTF-8 JSON lines: line 0 holds the namespaces and each table's metadata and current
// snapshot; line N holds one table's whole snapshot list, parsed only when that history is needed.
// (JSON.stringify never writes a raw newline, so lines split safely.)

interface CheckpointHeader {
  version: number;
  namespaces: Record<string, NamespaceEntry>;
  tables: Record<
    string,
    TableMeta & {
      length: number;
      current: Snapshot | null;
      line: number;
      /** Where the kept history starts once snapshots expired (see HistoryBase). */
      base?: HistoryBase;
      doomed?: DoomedFile[];
    }
  >;
  /** The line holding the recorded runs (absent in checkpoints written before runs were recorded). */
  runsLine?: number;
  streams?: Record<string, StreamState>;
  cursors?: Record<string, string>;
  schedules?: Record<string, ScheduleState>;
  /** Live streams' outboxes (absent in checkpoints written before outboxes existed). */
  outboxes?: Record<string, OutboxState>;
  /** CRC-32 of each line after the header, so a damaged section is found at open, not when first parsed. */
  lineCrc?: number[];
  maintenance?: MaintenanceLease;
  /** When it was written (the storage's clock): log entries it covers are removed a grace period later. */
  writtenMs?: number;
}

export function serializeState(state: CatalogState, writtenMs?: number): Uint8Array {
  const encoder = new TextEncoder();
  const encoded: Uint8Array[] = [];
  const lineCrc: number[] = [];
  const tables: CheckpointHeader["tables"] = {};
  for (const [key, { history, ...meta }] of Object.entries(state.tables)) {
    // A view of historyLine's cache for this table's history (each table its own), copied below.
    const { bytes, crc } = historyLine(history.snapshots);
    encoded.push(bytes);
    lineCrc.push(crc);
    tables[key] = { ...meta, length: history.length, current: history.current ?? null, line: encoded.length };
    if (history.base) tables[key].base = history.base;
  }
  const runs = encoder.encode(JSON.stringify(state.runs));
  encoded.push(runs);
  lineCrc.push(crc32(runs));
  const header: CheckpointHeader = {
    // First, so that checkpointWrittenMs() finds it in the first bytes without reading the whole file.
    ...(writtenMs !== undefined ? { writtenMs } : {}),
    version: state.version,
    namespaces: state.namespaces,
    tables,
    runsLine: encoded.length,
    streams: { ...state.streams },
    cursors: { ...state.cursors },
    ...(state.schedules ? { schedules: { ...state.schedules } } : {}),
    outboxes: { ...state.outboxes },
    lineCrc,
  };
  if (state.maintenance) header.maintenance = state.maintenance;
  const parts = [encoder.encode(JSON.stringify(header)), ...encoded];
  const out = new Uint8Array(parts.reduce((n, b) => n + b.length + 1, -1));
  let at = 0;
  for (const b of parts) {
    if (at > 0) out[at - 1] = 10;
    out.set(b, at);
    at += b.length + 1;
  }
  return out;
}

/** When a checkpoint was written, from its header alone (undefined for one written before this was kept). */
export function checkpointWrittenMs(bytes: Uint8Array): number | undefined {
  // serializeState writes it as the header's first key: the first bytes are enough.
  const head = new TextDecoder().decode(bytes.subarray(0, CHECKPOINT_HEAD_BYTES));
  const found = /^\{"writtenMs":(\d+)[,}]/.exec(head);
  return found ? Number(found[1]) : undefined;
}

/** How many leading bytes of a checkpoint checkpointWrittenMs() needs. */
export const CHECKPOINT_HEAD_BYTES = 64;

/** Parses the header now and each table's history on first use; `corrupt` reports a bad section. */
export function deserializeState(
  bytes: Uint8Array,
  corrupt: (what: string, cause: unknown) => Error,
): CatalogState {
  const decoder = new TextDecoder();
  const starts = [0];
  for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, i + 1)) starts.push(i + 1);
  const lineBytes = (n: number) =>
    bytes.subarray(starts[n], n + 1 < starts.length ? starts[n + 1]! - 1 : bytes.length);
  const line = (n: number) => decoder.decode(lineBytes(n));
  let header: CheckpointHeader;
  try {
    header = checked<CheckpointHeader>(JSON.parse(line(0)), checkpointHeader, "header");
    if (header.lineCrc) {
      if (header.lineCrc.length !== starts.length - 1)
        throw new Error(`${starts.length - 1} sections where the header lists ${header.lineCrc.length}`);
      header.lineCrc.forEach((crc, i) => {
        if (crc32(lineBytes(i + 1)) !== crc) throw new Error(`section ${i + 1} fails its CRC-32`);
      });
    }
  } catch (cause) {
    throw corrupt("its header", cause);
  }
  const tables: Record<string, TableState> = {};
  for (const [key, { length, current, line: n, base, ...meta }] of Object.entries(header.tables)) {
    const load = () => {
      try {
        return checked<Snapshot[]>(JSON.parse(line(n)), arrayOf(snapshotShape), "snapshots");
      } catch (cause) {
        throw corrupt(`the history of table ${key}`, cause);
      }
    };
    tables[key] = { ...meta, history: TableHistory.lazy(current ?? undefined, length, load, base) };
  }
  const runsLine = header.runsLine;
  const runs =
    runsLine === undefined
      ? RunLog.empty()
      : RunLog.lazy(() => {
          try {
            return checked<Record<string, RunRecord>>(
              JSON.parse(line(runsLine)),
              recordOf(runRecord),
              "runs",
            );
          } catch (cause) {
            throw corrupt("its recorded runs", cause);
          }
        });
  const state: CatalogState = {
    version: header.version,
    namespaces: header.namespaces,
    tables,
    runs,
    streams: header.streams ?? {},
    cursors: header.cursors ?? {},
    ...(header.schedules ? { schedules: header.schedules } : {}),
    outboxes: header.outboxes ?? {},
  };
  if (header.maintenance) state.maintenance = header.maintenance;
  return state;
}
