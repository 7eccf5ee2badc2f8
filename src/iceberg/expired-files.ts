// The metadata files of expired snapshots: their manifest lists, and the manifests no kept snapshot lists any
// more. Iceberg deletes them when it expires snapshots; here they go once no metadata version still on disk
// and named by the newest one's metadata-log lists those snapshots (a reader holding such a version finds
// every file it names). Versions only ever drop snapshots from the front (expiry), and a list only ever
// drops manifests (merging, a fresh listing), never takes one back: so what every retained version needs of
// the past is what the OLDEST retained version's first snapshot lists, and everything older is unreferenced.
//
// The lists to delete are known without listing the folder (which holds every retained snapshot's files):
// a version that drops snapshots a previous one listed queues their lists. A process's first deletion lists
// the folder once, for what expired before it started.
//
// The deletion runs after the new version, its hint and the dropped versions are gone, manifests before the
// lists that name them: a process killed midway leaves lists whose manifests are partly gone, which no
// retained version names, and which the next deletion reads again (a missing file is no error there).
import type { Storage } from "../storage/types.js";
import { inFolder, type Known, readVersion, recordsOf } from "./known-metadata.js";
import type { ManifestFile } from "./manifest-schemas.js";
import type { TableMetadata } from "./table-metadata.js";

/** A metadata version's oldest snapshot (undefined: it has none) and that snapshot's manifest list. */
export type OldestListed = { sequence: number; list: string } | undefined;

/** A manifest list's file name (manifests.ts): its snapshot's sequence number comes first. */
const LIST_FILE = /^snap-(\d+)-[^/]*\.avro$/;

/** What a table's exports in this process know of the metadata versions still retained. */
export interface RetainedVersions {
  /** Each retained version's first snapshot, by version, ascending (those this process wrote or read). */
  oldest: Map<number, OldestListed>;
  /** The files of snapshots up to this sequence number are deleted already. */
  deletedThrough: number;
  /** Manifest lists of expired snapshots not deleted yet (path -> sequence number). */
  expired: Map<string, number>;
  /** Whether the folder was listed for lists of snapshots that expired before this process started. */
  swept: boolean;
}

/**
 * The retained versions once `version` is written: the previous ones from `firstRetained` on, and it. The
 * map is the previous version's, carried on (that version's Known is replaced by the new one's).
 */
export function retainedVersions(
  previous: Known | undefined,
  version: number,
  metadata: TableMetadata,
  folder: string,
  firstRetained: number,
): RetainedVersions {
  const retained = previous?.retained ?? {
    oldest: new Map(),
    deletedThrough: 0,
    expired: new Map(),
    swept: false,
  };
  const { oldest } = retained;
  if (previous?.metadata && !oldest.has(previous.version))
    oldest.set(previous.version, oldestListed(folder, previous.metadata));
  // Snapshots the previous version listed and this one does not: expired (they leave from the front).
  const first = metadata.snapshots[0]?.["snapshot-id"] ?? Number.POSITIVE_INFINITY;
  for (const s of previous?.metadata?.snapshots ?? []) {
    if (s["snapshot-id"] >= first) break;
    retained.expired.set(inFolder(folder, s["manifest-list"]), s["snapshot-id"]);
  }
  oldest.set(version, oldestListed(folder, metadata));
  for (const v of oldest.keys()) {
    if (v >= firstRetained) break;
    oldest.delete(v);
  }
  return retained;
}

/**
 * Deletes the files of snapshots no retained version lists any more, once the oldest retained version
 * (`firstRetained`) no longer lists them. Best effort: a failure leaves files for the next export.
 */
export async function deleteExpired(
  storage: Storage,
  folder: string,
  retained: RetainedVersions,
  firstRetained: number,
): Promise<void> {
  let listed = retained.oldest.get(firstRetained);
  if (!retained.oldest.has(firstRetained)) {
    const read = await readOldestListed(storage, folder, firstRetained);
    if (read === null) return; // unreadable: what it needs is unknown
    listed = read;
    // Kept first in the map's order: it is the oldest retained version.
    const rest = [...retained.oldest];
    retained.oldest.clear();
    retained.oldest.set(firstRetained, read);
    for (const [v, o] of rest) retained.oldest.set(v, o);
  }
  if (!listed || listed.sequence - 1 <= retained.deletedThrough) return;
  try {
    if (!retained.swept) {
      for (const f of await storage.files.list(`${folder}/`)) {
        const m = LIST_FILE.exec(f.path.slice(folder.length + 1));
        if (m && Number(m[1]) < listed.sequence) retained.expired.set(f.path, Number(m[1]));
      }
      retained.swept = true;
    }
    const due = [...retained.expired].filter(([, sequence]) => sequence < listed.sequence);
    await deleteExpiredFiles(
      storage,
      folder,
      listed,
      due.map(([path]) => path),
    );
    for (const [path] of due) retained.expired.delete(path);
    retained.deletedThrough = listed.sequence - 1;
  } catch {
    // left for the next export
  }
}

/** What a version needs of the past: its first snapshot, from its metadata. */
function oldestListed(folder: string, metadata: TableMetadata): OldestListed {
  const first = metadata.snapshots[0];
  return first && { sequence: first["snapshot-id"], list: inFolder(folder, first["manifest-list"]) };
}

/** The same of a version on disk (one this process neither wrote nor read); undefined when unreadable. */
async function readOldestListed(
  storage: Storage,
  folder: string,
  version: number,
): Promise<OldestListed | null> {
  try {
    return oldestListed(folder, await readVersion(storage, folder, version));
  } catch {
    return null;
  }
}

/** The Parquet copies of inlined rows a manifest names (snapshot-entries.ts), as store paths. */
export function inlineCopiesOf(folder: string, records: readonly ManifestRecord[]): string[] {
  const out: string[] = [];
  for (const r of records) {
    const uri = r.data_file.file_path;
    const slash = uri.lastIndexOf("/");
    if (uri.slice(0, slash).endsWith("/metadata/inline"))
      out.push(`${folder}/inline/${uri.slice(slash + 1)}`);
  }
  return out;
}

/** A manifest entry, as far as deletion needs it. */
export interface ManifestRecord {
  data_file: { file_path: string };
}

/**
 * The Parquet copies of inlined rows that the `doomed` manifests name and none of the `kept` ones does. A
 * doomed manifest that cannot be read names nothing (its copies stay: only disk); a kept one that cannot be
 * read throws, since what it keeps would be unknown. The kept manifests are read only when there is a copy
 * to delete: most tables never inline.
 */
export async function copiesOnlyIn(
  storage: Storage,
  folder: string,
  doomed: Iterable<string>,
  kept: Iterable<string>,
): Promise<Set<string>> {
  const copies = new Set<string>();
  for (const path of doomed)
    for (const copy of inlineCopiesOf(folder, await recordsOf<ManifestRecord>(storage, path).catch(() => [])))
      copies.add(copy);
  for (const path of copies.size > 0 ? kept : [])
    for (const copy of inlineCopiesOf(folder, await recordsOf<ManifestRecord>(storage, path)))
      copies.delete(copy);
  return copies;
}

/**
 * Deletes `lists` (of snapshots before `oldest`, the oldest retained version's first snapshot), the
 * manifests only they name, and the Parquet copies of inlined rows only those manifests name. Nothing is
 * deleted when `oldest`'s own list cannot be read (it throws): what it keeps would then be unknown.
 *
 * An inlined file named by a manifest of an expired snapshot was added before `oldest`; if any retained
 * snapshot still has it, `oldest` has it too (a file is never added twice), so `oldest`'s manifests name
 * it. Order: copies, manifests, lists — a process killed midway leaves lists that the next deletion reads
 * again, and nothing a list on disk names is gone while what it would lead to is not.
 */
async function deleteExpiredFiles(
  storage: Storage,
  folder: string,
  oldest: { sequence: number; list: string },
  lists: readonly string[],
): Promise<void> {
  if (lists.length === 0) return;
  const keptManifests = await recordsOf<ManifestFile>(storage, oldest.list);
  const kept = new Set(keptManifests.map((m) => inFolder(folder, m.manifest_path)));
  const unreferenced = new Set<string>();
  for (const list of lists) {
    // A list torn by power loss names nothing readable: its manifests are left (only disk).
    const manifests = await recordsOf<ManifestFile>(storage, list).catch((): ManifestFile[] => []);
    for (const m of manifests) {
      const path = inFolder(folder, m.manifest_path);
      if (Number(m.added_snapshot_id) < oldest.sequence && !kept.has(path)) unreferenced.add(path);
    }
  }
  const copies = await copiesOnlyIn(storage, folder, unreferenced, kept);
  const remove = (path: string) => storage.files.delete(path).catch(() => {});
  for (const path of copies) await remove(path);
  for (const path of unreferenced) await remove(path);
  for (const path of lists) await remove(path);
}
