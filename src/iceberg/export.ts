// exportIceberg(): brings a table's Iceberg metadata (next to its data, under data/<ns>/<table>/metadata/)
// up to the catalog's current state. It is incremental — snapshots already described keep their manifest
// lists, and only newer ones get files — so it serves both as the one-off export of any table and as the
// per-commit step of tables declared with `iceberg: true`. The catalog stays the truth: the metadata is a
// view of it that can always be rebuilt, so a failed or skipped export is made good by the next one.
//
// Commit protocol, as Iceberg's file-system tables do it: manifests and manifest list first, then
// `v<N+1>.metadata.json` created exclusively (the FileStore's write-once is the atomic step: of two writers
// racing for N+1 one wins, the other re-reads and takes N+2), then `version-hint.text`.
import { AvaError } from "../errors.js";
import type { DataFile, Snapshot } from "../storage/catalog/model.js";
import { clockOf, type Storage } from "../storage/types.js";
import { deleteExpired, type ManifestRecord, retainedVersions } from "./expired-files.js";
import { type Known, inFolder, loadKnown, METADATA_FILE, recordsOf } from "./known-metadata.js";
import { backgroundDelayMs, inLane } from "./lanes.js";
import { deleteOrphans } from "./orphaned-files.js";
import { appendManifests, expiredSmalls } from "./manifest-merge.js";
import { inlineWriter, rewriteEntries } from "./snapshot-entries.js";
import { type IcebergOptions, locator } from "./location.js";
import type { ManifestFile } from "./manifest-schemas.js";
import { type ManifestEntry, type SnapshotFiles, writeManifest, writeManifestList } from "./manifests.js";
import { metadataBytes } from "./metadata-json.js";
import { icebergSchemas } from "./schema.js";
import {
  asUuid,
  type IcebergSnapshot,
  snapshotSummary,
  type TableMetadata,
  tableMetadata,
} from "./table-metadata.js";
import { getOrCreate } from "../util/get-or-create.js";

export type { IcebergOptions } from "./location.js";

export interface IcebergExport {
  /** The table's current metadata file, as a path in the storage's FileStore. */
  metadataPath: string;
  /** Its version N (`vN.metadata.json`). */
  version: number;
  /** How many snapshots got manifests in this call (0: the metadata was already current). */
  snapshotsWritten: number;
}

/** The table's metadata folder in the FileStore. */
export function icebergFolder(namespace: string, table: string): string {
  return `data/${namespace}/${table}/metadata`;
}

/**
 * Metadata files are written without fsync: they are a view of the catalog, and a version torn by power
 * loss is set aside and rewritten by the next export (known-metadata.ts), so a sync would only slow every
 * commit down. The version's JSON and the hint, which readers find by name or by listing, are written whole
 * (never seen part-written); manifests and lists are only found through them.
 */
const REBUILDABLE = { durable: false, whole: true } as const;

/**
 * Earlier metadata versions a version's metadata-log names (and keeps on disk), as Iceberg's default
 * (write.metadata.previous-versions-max). Tests lower it to see versions and expired snapshots' files go.
 */
export const previousVersions = { max: 100 };

const known = new WeakMap<Storage, Map<string, Known>>();

function knownOf(storage: Storage): Map<string, Known> {
  return getOrCreate(known, storage, () => new Map<string, Known>());
}

/**
 * Writes (or brings up to date) the Iceberg v2 metadata of `namespace.table`. NOT_FOUND for a table the
 * catalog does not have; UNSUPPORTED_TYPE for a column Iceberg v2 cannot describe.
 */
export function exportIceberg(
  storage: Storage,
  namespace: string,
  table: string,
  options: IcebergOptions = {},
): Promise<IcebergExport> {
  return queued(storage, namespace, table, options, false);
}

/**
 * The per-commit export (TableOptions.iceberg): right after this context's own commit, the catalog state it
 * holds already has that commit, so the first attempt reads no catalog files.
 */
export function exportIcebergAfterCommit(
  storage: Storage,
  namespace: string,
  table: string,
  options: IcebergOptions,
): Promise<IcebergExport> {
  return queued(storage, namespace, table, options, true);
}

function queued(
  storage: Storage,
  namespace: string,
  table: string,
  options: IcebergOptions,
  held: boolean,
): Promise<IcebergExport> {
  const key = `${namespace}.${table}`;
  return inLane(
    storage,
    key,
    held,
    () => exportWithRetry(storage, namespace, table, options, held),
    held && options.background ? backgroundDelayMs(knownOf(storage).get(key)?.versionMs) : 0,
  );
}

async function exportWithRetry(
  storage: Storage,
  namespace: string,
  table: string,
  options: IcebergOptions,
  held: boolean,
): Promise<IcebergExport> {
  const key = `${namespace}.${table}`;
  for (let attempt = 0; ; attempt++) {
    try {
      return await exportOnce(storage, namespace, table, options, held && attempt === 0);
    } catch (err) {
      knownOf(storage).delete(key); // whatever happened, re-read the metadata next time
      if (!(err instanceof LostRace)) throw err;
      if (attempt >= 4)
        throw new AvaError(
          "COMMIT_CONFLICT",
          `Iceberg metadata of ${key}: other writers created the next metadata version first ${attempt + 1} times`,
          { cause: err },
        );
    }
  }
}

/**
 * The files of each of `smalls` (manifests of expired snapshots) by snapshot, as `read` finds them; a
 * manifest that cannot be read or whose files are not all live is left out (the snapshot then lists its
 * live files afresh).
 */
async function expiredFilesOf(
  smalls: readonly ManifestFile[],
  read: (m: ManifestFile) => Promise<DataFile[] | undefined>,
): Promise<Map<number, DataFile[]>> {
  const out = new Map<number, DataFile[]>();
  for (const m of smalls) {
    const files = await read(m).catch(() => undefined);
    if (files) out.set(Number(m.added_snapshot_id), files);
  }
  return out;
}

/** Another writer created the metadata version this export meant to write. */
class LostRace extends Error {}

/**
 * The descriptions in the previous version of `kept`'s first snapshots, in order, and their snapshot-log
 * entries. Both are runs of one table's history in sequence order (expiry only cuts a run's front), so a
 * run of the previous version that describes the first and the last of the snapshots it has in common with
 * `kept` describes every one between: only those two are compared, not the thousands between them that each
 * commit would otherwise walk. Nothing is reused from a version that is not such a run. When the previous
 * version describes just `kept`'s first snapshots (each commit's case), its very arrays are handed over for
 * the new version to extend — copying them was the rest of the per-commit cost that grew with the history;
 * the previous version is not used again (it is replaced, or dropped when the export fails).
 */
function describedRun(
  previous: TableMetadata | undefined,
  kept: readonly Snapshot[],
): { snapshots: IcebergSnapshot[]; log: TableMetadata["snapshot-log"] } {
  const none = { snapshots: [], log: [] };
  const described = previous?.snapshots ?? [];
  const first = kept[0];
  if (!first || described.length === 0) return none;
  const from = described.findIndex((d) => d["snapshot-id"] >= first.sequenceNumber); // expired ones lead
  if (from < 0) return none;
  const n = Math.min(described.length - from, kept.length);
  const same = (i: number) =>
    described[from + i]!["snapshot-id"] === kept[i]!.sequenceNumber &&
    described[from + i]!.summary["avalanche.snapshot-id"] === kept[i]!.id;
  if (!same(0) || !same(n - 1)) return none;
  const log = previous!["snapshot-log"];
  const aligned = log.length === described.length;
  if (from === 0 && n === described.length && aligned) return { snapshots: described, log };
  return { snapshots: described.slice(from, from + n), log: aligned ? log.slice(from, from + n) : [] };
}

async function exportOnce(
  storage: Storage,
  namespace: string,
  table: string,
  options: IcebergOptions,
  held: boolean,
): Promise<IcebergExport> {
  const key = `${namespace}.${table}`;
  const state = (held ? storage.catalog.peek() : undefined) ?? (await storage.catalog.current());
  const entry = state.tables[key];
  if (!entry) throw new AvaError("NOT_FOUND", `cannot export Iceberg metadata: table ${key} does not exist`);
  const folder = icebergFolder(namespace, table);
  const uri = locator(storage.files, options, key);
  const schemas = icebergSchemas(entry, `table ${key}`);
  const prev = knownOf(storage).get(key) ?? (await loadKnown(storage, folder));
  // Metadata left by a dropped table of the same name describes other snapshots, and metadata written for
  // another location names other URIs: only its numbering goes on.
  const location = uri(`data/${namespace}/${table}`);
  const usable =
    prev?.metadata?.["table-uuid"] === asUuid(entry.uuid) && prev.metadata.location === location
      ? prev
      : undefined;
  const kept = entry.history.snapshots;
  const reused = describedRun(usable?.metadata, kept);
  if (
    usable?.metadata &&
    usable.metadata.snapshots.length === kept.length &&
    reused.snapshots.length === kept.length &&
    usable.metadata["current-schema-id"] === schemas.currentSchemaId
  )
    return {
      metadataPath: `${folder}/v${usable.version}.metadata.json`,
      version: usable.version,
      snapshotsWritten: 0,
    };

  const nowMs = clockOf(storage);
  const ctx: SnapshotFiles = {
    files: storage.files,
    folder,
    uri,
    schema: schemas.schemas.at(-1)!,
    schemas: new Map(schemas.schemas.map((v) => [v["schema-id"], v])),
  };
  const lists = new Map<number, ManifestFile[]>();
  const listOf = async (snapshot: IcebergSnapshot): Promise<ManifestFile[]> => {
    const sequence = snapshot["snapshot-id"];
    const have = lists.get(sequence) ?? usable?.lists.get(sequence);
    if (have) return have;
    const path = inFolder(folder, snapshot["manifest-list"]);
    const records = await recordsOf<ManifestFile>(storage, path);
    lists.set(sequence, records);
    return records;
  };
  // The stale hint goes while the manifests are written (FileStore files are write-once, so it is replaced
  // by deleting it first); readers meanwhile find the newest version by listing, as the spec lets them.
  const hint = `${folder}/version-hint.text`;
  const staleHint = storage.files.delete(hint).catch(() => {});
  const writes: Promise<void>[] = [];
  const parquet = inlineWriter(
    storage,
    folder,
    writes,
    (f) => ctx.schemas.get(f.schemaId ?? 0) ?? ctx.schema,
  );
  let addedBy: Map<string, number> | undefined;
  const sequenceOf = (path: string) => {
    addedBy ??= new Map(kept.flatMap((s) => s.addedFiles.map((f) => [f.path, s.sequenceNumber] as const)));
    // Files added by expired snapshots: the newest expired one bounds their sequence number from above.
    return addedBy.get(path) ?? entry.history.base?.throughSequence ?? 0;
  };

  // The live files of expired snapshots by their URI in manifests, for merging their small manifests.
  let byUri: Map<string, DataFile> | undefined;
  const readFiles = async (m: ManifestFile): Promise<DataFile[] | undefined> => {
    byUri ??= new Map((entry.history.base?.files ?? []).map((f) => [uri(f.path), f]));
    const path = inFolder(folder, m.manifest_path);
    const records = await recordsOf<ManifestRecord>(storage, path);
    const files = records.map((r) => byUri!.get(r.data_file.file_path));
    return files.every((f) => f !== undefined) ? (files as DataFile[]) : undefined;
  };

  const snapshots: IcebergSnapshot[] = reused.snapshots;
  let written = 0;
  for (let i = snapshots.length; i < kept.length; i++) {
    const s = kept[i]!;
    const seq = s.sequenceNumber;
    const parent = i > 0 ? kept[i - 1]!.sequenceNumber : undefined;
    let manifests: ManifestFile[];
    // A parent's list that cannot be read (a torn write) is no loss: this snapshot then lists its live files.
    // So does an append whose merging would leave too long a list (manifest-merge.ts).
    const parentList =
      s.removedFiles.length === 0 && parent !== undefined
        ? await listOf(snapshots[i - 1]!).catch(() => undefined)
        : undefined;
    const append =
      parentList &&
      appendManifests(s, parentList, kept, await expiredFilesOf(expiredSmalls(parentList, kept), readFiles));
    if (append) {
      const entries = await Promise.all(
        append.entries.map(async (e): Promise<ManifestEntry> => ({ ...e, file: await parquet(e.file) })),
      );
      const added = entries.length > 0 ? [writeManifest(ctx, seq, entries)] : [];
      writes.push(...added.map((m) => m.written));
      manifests = [...added.map((m) => m.value), ...append.reused];
    } else {
      const m = writeManifest(ctx, seq, await rewriteEntries(entry, i, s, parquet, sequenceOf));
      writes.push(m.written);
      manifests = [m.value];
    }
    const list = writeManifestList(ctx, seq, parent, manifests, append ? parentList : undefined);
    writes.push(list.written);
    lists.set(seq, manifests);
    const snapshot: IcebergSnapshot = {
      "snapshot-id": seq,
      "sequence-number": seq,
      "timestamp-ms": s.timestampMs,
      "manifest-list": uri(list.value),
      summary: snapshotSummary(s, manifests),
      "schema-id": s.schemaId ?? 0,
    };
    if (parent !== undefined) snapshot["parent-snapshot-id"] = parent;
    snapshots.push(snapshot);
    written++;
  }

  const version = (prev?.version ?? 0) + 1;
  const previousLog = usable?.metadata?.["metadata-log"] ?? [];
  const metadataLog = usable?.metadata
    ? [
        ...previousLog.slice(-(previousVersions.max - 1)),
        {
          "timestamp-ms": usable.metadata["last-updated-ms"],
          "metadata-file": uri(`${folder}/v${usable.version}.metadata.json`),
        },
      ]
    : [];
  const made = performance.now();
  const metadata = tableMetadata(entry, schemas, snapshots, location, nowMs, metadataLog, reused.log);
  const bytes = metadataBytes(metadata); // made while the manifests are being written
  const making = performance.now() - made;
  await Promise.all(writes); // every file the metadata names exists before the metadata does
  const writing = performance.now();
  const path = `${folder}/v${version}.metadata.json`;
  try {
    await storage.files.write(path, bytes, REBUILDABLE);
  } catch (err) {
    await staleHint;
    const exists = (await storage.files.list(path)).some((f) => f.path === path);
    if (exists) throw new LostRace(`${path} exists`, { cause: err });
    throw err;
  }
  // The hint is only a hint (readers fall back to listing): a concurrent writer's is as good as ours. It
  // is written in place, not whole (a temporary file linked into place): it was deleted above, and while
  // its one write is under way a reader finds it empty, which readers treat as missing (icebird, Iceberg's
  // HadoopTableOperations) — so the link and the temporary file's deletion, two of the few file-system
  // operations a version costs, bought nothing.
  await staleHint;
  await storage.files
    .write(hint, new TextEncoder().encode(String(version)), { durable: false })
    .catch(() => {});
  // Versions the new one's metadata-log no longer names go, as Iceberg's write.metadata.delete-after-commit
  // does: each lists every kept snapshot, so keeping them all made the folder grow with the square of the
  // history (hundreds of MB after a few thousand commits). Best effort: a leftover is only disk.
  for (const dropped of previousLog.slice(0, Math.max(0, previousLog.length - (previousVersions.max - 1)))) {
    const path = inFolder(folder, dropped["metadata-file"]);
    if (METADATA_FILE.test(path.slice(folder.length + 1))) await storage.files.delete(path).catch(() => {});
  }
  const versionMs = making + (performance.now() - writing);
  // The oldest version the new one's log names, whose first snapshot is the oldest any retained one lists.
  const first = metadataLog[0];
  const firstRetained = first
    ? Number(METADATA_FILE.exec(inFolder(folder, first["metadata-file"]).slice(folder.length + 1))?.[1])
    : version;
  const retained = retainedVersions(usable, version, metadata, folder, firstRetained);
  if (entry.history.base) await deleteExpired(storage, folder, retained, firstRetained);
  // A rewrite (or a process killed while deleting) leaves versions the new one does not retain.
  const stale =
    prev !== undefined &&
    (usable === undefined || prev.stale === true) &&
    !(await deleteOrphans(storage, folder, { version, metadata }, firstRetained));
  // Only the newest list is kept: every later append starts from it, and a process that lives through
  // thousands of commits must not hold all of them.
  const newest = kept.at(-1)?.sequenceNumber;
  const newestList = newest === undefined ? undefined : (lists.get(newest) ?? usable?.lists.get(newest));
  knownOf(storage).set(key, {
    version,
    metadata,
    lists: newestList && newest !== undefined ? new Map([[newest, newestList]]) : new Map(),
    versionMs,
    retained,
    stale,
  });
  return { metadataPath: path, version, snapshotsWritten: written };
}
