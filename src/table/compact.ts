// Compaction: runs of small data files merged into files near a target size, committed as one "compact"
// snapshot that changes no visible row. Old files are kept until the snapshots that read them expire
// (Iceberg's way, not DuckLake's begin/end ranges): every older snapshot still lists exactly the files it
// read, so time travel needs no new bookkeeping, and retention (expireSnapshots) is what frees the space.
// Only contiguous runs are merged and the merged file takes the run's place, so scans keep commit order.
// append_scan consumers skip "compact" snapshots (addsNewRows), and the rows keep their provenance
// columns byte for byte, so run-scoped streams and lineage read them as before.
import { AvaError, isAvaError, toAvaError } from "../errors.js";
import { withColumnSizes } from "../iceberg/column-metrics.js";
import { withParquetFieldIdsIfDescribable } from "../iceberg/parquet-field-ids.js";
import { encodeParquet } from "../parquet/parquet.js";
import type { DataFile } from "../storage/catalog/model.js";
import type { SnapshotDraft } from "../storage/catalog/state.js";
import { clockOf } from "../storage/types.js";
import { ulid } from "../util/ids.js";
import { flushInlinedRun } from "./inline-flush-run.js";
import { Scan } from "./scan.js";
import { columnStats } from "./stats.js";
import { schemaFromJson } from "../schema/arrow-json.js";
import { storedSchema } from "../schema/provenance.js";
import { tableKey } from "../storage/catalog/model.js";
import type { TableState } from "../storage/catalog/state.js";
import type { Storage } from "../storage/types.js";

export interface CompactOptions {
  /** Merged files are made about this big (bytes); files under 75% of it are "small". Default 16 MiB. */
  targetFileBytes?: number;
  /** A run of fewer small files than this is left as it is. Default 2. */
  minFiles?: number;
  /**
   * Tiered (what maintenance uses): only the newest small files merge, once they hold as many rows as the
   * file before them, so each row is rewritten O(log n) times however often compaction runs. Default
   * false: every run of adjacent small files is merged.
   */
  tiered?: boolean;
  /** Flush: only inlined appends are merged (every run of them, however short), into real files. */
  flush?: boolean;
}

export interface CompactResult {
  /** The compaction's snapshot; undefined when there was nothing to merge. */
  snapshotId: string | undefined;
  /** Files merged away, and files they became. */
  filesRemoved: number;
  filesAdded: number;
  /** Live files before and after. */
  filesBefore: number;
  filesAfter: number;
}

const DEFAULT_TARGET = 16 * 1024 * 1024;

function checkOptions(identifier: string, { targetFileBytes, minFiles }: CompactOptions): void {
  for (const [name, v, min] of [
    ["targetFileBytes", targetFileBytes, 1],
    ["minFiles", minFiles, 2],
  ] as const)
    if (v !== undefined && !(Number.isSafeInteger(v) && v >= min))
      throw new AvaError(
        "INVALID_ARGUMENT",
        `compact(${identifier}): ${name} must be a whole number ≥ ${min}, got ${String(v)}`,
      );
}

/** Cuts a run of adjacent small files into groups of at most about `target` bytes, each of ≥ `minFiles`. */
function chunk(run: readonly DataFile[], target: number, minFiles: number): DataFile[][] {
  const groups: DataFile[][] = [];
  let group: DataFile[] = [];
  let bytes = 0;
  for (const f of run) {
    if (group.length > 0 && bytes + f.sizeBytes > target) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
    group.push(f);
    bytes += f.sizeBytes;
  }
  groups.push(group);
  return groups.filter((g) => g.length >= minFiles);
}

/** Every run of adjacent files `include` accepts, cut into groups (see chunk). */
function plainRuns(
  live: readonly DataFile[],
  include: (f: DataFile) => boolean,
  target: number,
  minFiles: number,
): DataFile[][] {
  const groups: DataFile[][] = [];
  let run: DataFile[] = [];
  for (const f of [...live, undefined]) {
    if (f && include(f)) run.push(f);
    else {
      groups.push(...chunk(run, target, minFiles));
      run = [];
    }
  }
  return groups;
}

/** The groups of adjacent small files to merge, each at most about `targetFileBytes`. */
export function planCompaction(
  live: readonly DataFile[],
  { targetFileBytes = DEFAULT_TARGET, minFiles = 2, tiered = false, flush = false }: CompactOptions = {},
): DataFile[][] {
  if (flush) {
    const inline = (f: DataFile) => f.inline !== undefined;
    return plainRuns(live, inline, targetFileBytes, 1);
  }
  const small = (f: DataFile) => f.sizeBytes < 0.75 * targetFileBytes;
  if (!tiered) return plainRuns(live, small, targetFileBytes, minFiles);
  // Tiered: appends only ever add files at the end, so the small files form a tail. The oldest tail file
  // whose successors hold at least as many rows as it does is merged with them all: a row's file at least
  // doubles each time it is rewritten (O(log n) rewrites per row), and the tail stays O(log n) files.
  let first = live.length;
  while (first > 0 && small(live[first - 1]!)) first--;
  const tail = live.slice(first);
  let after = tail.reduce((n, f) => n + f.rowCount, 0);
  for (let i = 0; i < tail.length - 1; i++) {
    after -= tail[i]!.rowCount;
    if (after >= tail[i]!.rowCount && tail.length - i >= minFiles)
      return chunk(tail.slice(i), targetFileBytes, 2);
  }
  return [];
}

/** Reads a run of files (conformed to the current schema, as a scan does) and writes them as one. */
async function mergeRun(
  storage: Storage,
  entry: TableState,
  run: DataFile[],
): Promise<{ file: DataFile; written: Promise<void> }> {
  const identifier = tableKey(entry.namespace, entry.name);
  const versions = entry.schemas;
  const path = `data/${entry.namespace}/${entry.name}/${ulid(clockOf(storage))}.parquet`;
  // The stored schema from the catalog itself, so maintenance needs no declaration of the table.
  const stored = storedSchema(schemaFromJson(entry.schema), entry.rowLineage);
  const spliced = await flushInlinedRun(entry, stored, run, storage.parquetEncoder);
  // Background writes: OPFS in a Worker then writes asynchronously, and that Worker's appends go on.
  const write = (bytes: Uint8Array) => storage.files.write(path, bytes, { background: true });
  if (spliced) {
    const stats = withColumnSizes(spliced.file.stats, spliced.bytes);
    return { file: { ...spliced.file, path, stats }, written: write(spliced.bytes) };
  }
  const rows = await new Scan({
    identifier,
    stored,
    files: storage.files,
    resolve: async () => ({ snapshot: undefined, liveFiles: run, versions }),
  }).toArrow();
  const expected = run.reduce((n, f) => n + f.rowCount, 0);
  if (rows.numRows !== expected)
    throw new AvaError(
      "DATA_CORRUPT",
      `compact(${identifier}): read ${rows.numRows} rows from ${run.length} files that hold ${expected}`,
    );
  // Iceberg readers find columns by Parquet field ids: merged files carry them as appended files do.
  const bytes = await encodeParquet(
    withParquetFieldIdsIfDescribable(rows, entry, identifier),
    {},
    storage.parquetEncoder,
  );
  // With each column's bytes, for Iceberg manifests' column_sizes (the footer is a few KB of a large file).
  const stats = withColumnSizes(columnStats(rows), bytes);
  const file: DataFile = { path, rowCount: rows.numRows, sizeBytes: bytes.length, stats };
  const schemaId = versions?.at(-1)?.id;
  if (schemaId) file.schemaId = schemaId; // written under the current version: conformed by the scan
  return { file, written: write(bytes) };
}

async function compactOnce(
  storage: Storage,
  namespace: string,
  name: string,
  options: CompactOptions,
): Promise<CompactResult> {
  const entry = (await storage.catalog.current()).tables[tableKey(namespace, name)];
  if (!entry) throw new AvaError("NOT_FOUND", `table ${tableKey(namespace, name)} does not exist`);
  const live = entry.history.liveFiles;
  const groups = planCompaction(live, options);
  const none = { snapshotId: undefined, filesRemoved: 0, filesAdded: 0 };
  if (groups.length === 0) return { ...none, filesBefore: live.length, filesAfter: live.length };
  const added: DataFile[] = [];
  const writes: Promise<void>[] = [];
  const removeWritten = async () => {
    await Promise.allSettled(writes);
    for (const f of added) await storage.files.delete(f.path).catch(() => {});
  };
  try {
    for (const run of groups) {
      const { file, written } = await mergeRun(storage, entry, run);
      added.push(file);
      writes.push(written);
    }
    const now = clockOf(storage);
    const draft: SnapshotDraft = {
      id: ulid(now),
      operation: "compact",
      timestampMs: now,
      addedFiles: added,
      removedFiles: groups.flat().map((f) => f.path),
    };
    // The files are written before the commit starts: a commit holds this catalog instance while it
    // waits for its files, and the appends of this context would queue behind a background file write.
    await Promise.all(writes);
    const result = await storage.catalog.commit([
      { op: "commitSnapshot", namespace, table: name, snapshot: draft },
    ]);
    const filesRemoved = draft.removedFiles!.length;
    const after = result.snapshots[0]!;
    return {
      snapshotId: after.id,
      filesRemoved,
      filesAdded: added.length,
      filesBefore: live.length,
      filesAfter: live.length - filesRemoved + added.length,
    };
  } catch (err) {
    // Not committed: the merged files are unreferenced; the files they would replace are untouched.
    await removeWritten();
    throw err;
  }
}

/**
 * Merges the table's small files (see CompactOptions). A compaction that loses a race (another compaction
 * or an overwrite replaced its files first) plans again on the new state, up to 3 times, then yields with
 * COMMIT_CONFLICT; concurrent appends never conflict with it (they only add files).
 */
export async function compactTable(
  storage: Storage,
  namespace: string,
  name: string,
  options: CompactOptions = {},
): Promise<CompactResult> {
  const identifier = tableKey(namespace, name);
  if (typeof options !== "object" || options === null)
    throw new AvaError("INVALID_ARGUMENT", `compact(${identifier}): options must be an object`);
  checkOptions(identifier, options);
  for (let attempt = 1; ; attempt++) {
    try {
      return await compactOnce(storage, namespace, name, options);
    } catch (err) {
      if (isAvaError(err, "COMMIT_CONFLICT") && attempt < 3) continue;
      throw toAvaError(err, `compacting ${identifier}`);
    }
  }
}
