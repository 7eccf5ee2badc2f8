// Files no retained metadata version leads to any more, left by versions that are not retained although
// they are still on disk: the versions before a rewrite (a version torn by power loss, or metadata of a
// dropped table of the same name, makes the next export describe every snapshot again under new names,
// with an empty metadata-log), and versions a killed process did not get to delete. Iceberg's
// remove-orphan-files does this by listing; here the candidates are what those stale versions name — their
// manifest lists, the manifests those name, and the Parquet copies of inlined rows those name — so a file
// another process is writing for a version it has not committed yet is never one of them.
//
// A candidate goes only if no retained version (the newest and those its metadata-log names) names it,
// which is read from those versions' own files (a rare path: after a rewrite or a killed process). The
// stale versions' JSON goes last: a process killed midway leaves them on disk, and the next process finds
// them again (known-metadata.ts) and finishes. A stale file that cannot be read (torn) names nothing: what
// only it names is left on disk.
import type { Storage } from "../storage/types.js";
import { copiesOnlyIn } from "./expired-files.js";
import { inFolder, METADATA_FILE, readVersion, recordsOf } from "./known-metadata.js";
import type { ManifestFile } from "./manifest-schemas.js";
import type { TableMetadata } from "./table-metadata.js";

/** A version's metadata, or undefined when it cannot be read. */
const versionAt = (storage: Storage, folder: string, v: number): Promise<TableMetadata | undefined> =>
  readVersion(storage, folder, v).catch(() => undefined);

/** What a set of versions names: their manifest lists and the manifests those name. */
async function named(
  storage: Storage,
  folder: string,
  versions: readonly (TableMetadata | undefined)[],
  strict: boolean,
): Promise<{ lists: Set<string>; manifests: Set<string> }> {
  const lists = new Set<string>();
  for (const m of versions)
    for (const s of m?.snapshots ?? []) lists.add(inFolder(folder, s["manifest-list"]));
  const manifests = new Set<string>();
  for (const list of lists) {
    const read = recordsOf<ManifestFile>(storage, list);
    // What a retained list names must be known (strict): else nothing is deleted.
    for (const m of strict ? await read : await read.catch((): ManifestFile[] => []))
      manifests.add(inFolder(folder, m.manifest_path));
  }
  return { lists, manifests };
}

/**
 * Deletes what the versions on disk below `firstRetained` name and no retained version does, then those
 * versions. `newest` is the version just written (held in memory). Returns whether it finished (else the
 * next export tries again); throws nothing.
 */
export async function deleteOrphans(
  storage: Storage,
  folder: string,
  newest: { version: number; metadata: TableMetadata },
  firstRetained: number,
): Promise<boolean> {
  try {
    const onDisk: number[] = [];
    for (const f of await storage.files.list(`${folder}/`)) {
      const m = METADATA_FILE.exec(f.path.slice(folder.length + 1));
      if (m) onDisk.push(Number(m[1]));
    }
    const stale = onDisk.filter((v) => v < firstRetained);
    if (stale.length === 0) return true;
    const retained = onDisk.filter((v) => v >= firstRetained && v < newest.version);
    const staleNamed = await named(
      storage,
      folder,
      await Promise.all(stale.map((v) => versionAt(storage, folder, v))),
      false,
    );
    const retainedVersions = [newest.metadata];
    for (const v of retained) {
      const metadata = await versionAt(storage, folder, v);
      if (!metadata) return false; // a retained version unreadable: what it names is unknown
      retainedVersions.push(metadata);
    }
    const keep = await named(storage, folder, retainedVersions, true);
    const manifests = [...staleNamed.manifests].filter((p) => !keep.manifests.has(p));
    const copies = await copiesOnlyIn(storage, folder, manifests, keep.manifests);
    const remove = (path: string) => storage.files.delete(path).catch(() => {});
    for (const path of copies) await remove(path);
    for (const path of manifests) await remove(path);
    for (const path of staleNamed.lists) if (!keep.lists.has(path)) await remove(path);
    for (const v of stale) await remove(`${folder}/v${v}.metadata.json`);
    return true;
  } catch {
    return false;
  }
}
