// The metadata files of expired snapshots: their manifest lists, and the manifests no kept snapshot lists any
// more. Iceberg deletes them when it expires snapshots; here they go once no metadata version still on disk
// and named by the newest one's metadata-log lists those snapshots (a reader holding such a version finds
// every file it names). Versions only ever drop snapshots from the front (expiry), and a list only ever
// drops manifests (merging, a fresh listing), never takes one back: so what every retained version needs of
// the past is what the OLDEST retained version's first snapshot lists, and everything older is unreferenced.
//
// The deletion runs after the new version, its hint and the dropped versions are gone, manifests before the
// lists that name them: a process killed midway leaves lists whose manifests are partly gone, which no
// retained version names, and which the next deletion reads again (a missing file is no error there).
import type { Storage } from "../storage/types.js";
import { readAvroFile } from "./avro-file.js";
import { inFolder } from "./known-metadata.js";
import type { ManifestFile } from "./manifest-schemas.js";
import type { TableMetadata } from "./table-metadata.js";

/** A metadata version's oldest snapshot (undefined: it has none) and that snapshot's manifest list. */
export type OldestListed = { sequence: number; list: string } | undefined;

/** A manifest list's file name (manifests.ts): its snapshot's sequence number comes first. */
const LIST_FILE = /^snap-(\d+)-[^/]*\.avro$/;

/** What a version needs of the past: its first snapshot, from its metadata. */
export function oldestListed(folder: string, metadata: TableMetadata): OldestListed {
  const first = metadata.snapshots[0];
  return first && { sequence: first["snapshot-id"], list: inFolder(folder, first["manifest-list"]) };
}

/** The same of a version on disk (one this process neither wrote nor read); undefined when unreadable. */
export async function readOldestListed(
  storage: Storage,
  folder: string,
  version: number,
): Promise<OldestListed | null> {
  try {
    const bytes = await storage.files.read(`${folder}/v${version}.metadata.json`);
    return oldestListed(folder, JSON.parse(new TextDecoder().decode(bytes)) as TableMetadata);
  } catch {
    return null;
  }
}

/**
 * Deletes the lists of snapshots before `oldest` (the oldest retained version's first snapshot) and the
 * manifests only they name. Returns how many files went. Nothing is deleted when `oldest`'s own list cannot
 * be read: what it keeps would then be unknown.
 */
export async function deleteExpiredFiles(
  storage: Storage,
  folder: string,
  oldest: { sequence: number; list: string },
): Promise<number> {
  const lists = (await storage.files.list(`${folder}/`))
    .map((f) => f.path)
    .filter((path) => {
      const m = LIST_FILE.exec(path.slice(folder.length + 1));
      return m !== null && Number(m[1]) < oldest.sequence;
    });
  if (lists.length === 0) return 0;
  const manifestsOf = async (path: string) =>
    readAvroFile(await storage.files.read(path), path).records as unknown as ManifestFile[];
  const kept = new Set((await manifestsOf(oldest.list)).map((m) => inFolder(folder, m.manifest_path)));
  const unreferenced = new Set<string>();
  for (const list of lists) {
    // A list torn by power loss names nothing readable: its manifests are left (only disk).
    const manifests = await manifestsOf(list).catch((): ManifestFile[] => []);
    for (const m of manifests) {
      const path = inFolder(folder, m.manifest_path);
      if (Number(m.added_snapshot_id) < oldest.sequence && !kept.has(path)) unreferenced.add(path);
    }
  }
  const remove = (path: string) => storage.files.delete(path).catch(() => {});
  for (const path of unreferenced) await remove(path);
  for (const path of lists) await remove(path);
  return unreferenced.size + lists.length;
}
