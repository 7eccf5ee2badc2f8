// Which files a snapshot's manifest lists when it cannot reuse its parent's manifests, and data files as
// the Parquet files manifests name (inlined appends are written out once for that).
import type { DataFile, Snapshot } from "../storage/catalog/model.js";
import type { TableState } from "../storage/catalog/state.js";
import type { Storage } from "../storage/types.js";
import { encodeParquet } from "../parquet/parquet.js";
import { inlinedRows, isInlinePath } from "../table/inline-data.js";
import { ADDED, DELETED, EXISTING } from "./manifest-schemas.js";
import type { ManifestEntry, ParquetFile } from "./manifests.js";
import { withIcebergFieldIds } from "./parquet-field-ids.js";
import type { IcebergSchema } from "./schema.js";

/**
 * The entries of a snapshot that removed files, or of the first one described: every file live after it
 * (ADDED if it added the file, else EXISTING), and DELETED entries for what it removed.
 */
export async function rewriteEntries(
  entry: TableState,
  index: number,
  s: Snapshot,
  parquet: (f: DataFile) => Promise<ParquetFile>,
  sequenceOf: (path: string) => number,
): Promise<ManifestEntry[]> {
  const history = entry.history;
  const added = new Set(s.addedFiles.map((f) => f.path));
  const entries: Promise<ManifestEntry>[] = history
    .liveFilesAt(index)
    .map(async (f): Promise<ManifestEntry> => {
      const mine = added.has(f.path);
      return {
        status: mine ? ADDED : EXISTING,
        file: await parquet(f),
        addedSequence: mine ? s.sequenceNumber : sequenceOf(f.path),
      };
    });
  // Nothing is known to be live before the oldest kept snapshot (none, or only expired snapshots' files).
  const before = index > 0 ? history.liveFilesAt(index - 1) : [];
  const removed = new Set(s.removedFiles);
  for (const f of before)
    if (removed.has(f.path))
      entries.push(
        parquet(f).then(
          (file): ManifestEntry => ({ status: DELETED, file, addedSequence: sequenceOf(f.path) }),
        ),
      );
  return Promise.all(entries);
}

/**
 * Data files as Parquet files in the store. Inlined small appends live only in the catalog, so their rows
 * are written out once, as a Parquet file in the metadata folder (never a data file of the table itself),
 * with the field ids of the schema version `schemaOf` gives for them (their columns' names are that
 * version's).
 */
export function inlineWriter(
  storage: Storage,
  folder: string,
  writes: Promise<void>[],
  schemaOf: (f: DataFile) => IcebergSchema,
): (f: DataFile) => Promise<ParquetFile> {
  return async (f) => {
    if (!isInlinePath(f.path)) return f;
    const path = `${folder}/inline/${f.path.slice(f.path.lastIndexOf("/") + 1)}.parquet`;
    const existing = (await storage.files.list(path)).find((x) => x.path === path);
    const described = { path, rowCount: f.rowCount, stats: f.stats, schemaId: f.schemaId ?? 0 };
    if (existing) return { ...described, sizeBytes: existing.size };
    const bytes = await encodeParquet(withIcebergFieldIds(await inlinedRows(storage.files, f), schemaOf(f)));
    writes.push(
      storage.files.write(path, bytes).catch(async (err) => {
        // Another export wrote it first: the same rows.
        if (!(await storage.files.list(path)).some((x) => x.path === path)) throw err;
      }),
    );
    return { ...described, sizeBytes: bytes.length };
  };
}
