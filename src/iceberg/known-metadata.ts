// The newest metadata version of a table, as an export goes on from it: held in memory after this process
// wrote it, or read back from the store (a fresh process, a lost race).
//
// Metadata files are written without fsync (they are a view of the catalog, rebuilt from it at will). A
// process killed with SIGKILL loses nothing it had written: the page cache keeps it, a version's files are
// all written before its JSON, which appears whole or not at all, and the hint comes last. Power loss can
// lose or tear the newest files in any order, though — the JSON of version N on disk while a manifest it
// names is not. So what is read back is checked first: the JSON must parse; every snapshot's manifest list
// must exist and not be empty; the newest list must read whole and each manifest it names exist with the
// length it gives. Anything short of that makes the version unusable, and the next export rewrites every
// kept snapshot's files under new names as the next version. Older lists are only checked for existence
// and length: reading every one back would make a fresh process's first export cost as much as the whole
// history. Readers that come before the next export see the broken version; the one after it is whole.
import type { Storage } from "../storage/types.js";
import { readAvroFile } from "./avro-file.js";
import type { RetainedVersions } from "./expired-files.js";
import type { ManifestFile } from "./manifest-schemas.js";
import type { TableMetadata } from "./table-metadata.js";

/** The newest metadata this process wrote or read, per storage and table: a commit then reads nothing back. */
export interface Known {
  version: number;
  /** Undefined when that version cannot be used: it is torn, or names files that are (see above). */
  metadata: TableMetadata | undefined;
  /** The newest snapshot's manifest list, once read or written: the next append lists it again plus one. */
  lists: Map<number, ManifestFile[]>;
  /** What writing that version's JSON and hint took this process (ms), which paces background exports. */
  versionMs?: number;
  /** What this process knows of the versions that version's metadata-log retains (expired-files.ts). */
  retained?: RetainedVersions;
  /** Versions on disk that no retained version's metadata-log names may still be there (orphaned-files.ts). */
  stale?: boolean;
}

/** A metadata version's file name. */
export const METADATA_FILE = /^v(\d+)\.metadata\.json$/;

/** The store path of a file in the metadata folder that the metadata names by `uri`. */
export function inFolder(folder: string, uri: string): string {
  return `${folder}/${uri.slice(uri.lastIndexOf("/") + 1)}`;
}

/** Version `version`'s metadata JSON, parsed; throws when it is missing or torn. */
export async function readVersion(storage: Storage, folder: string, version: number): Promise<TableMetadata> {
  const bytes = await storage.files.read(`${folder}/v${version}.metadata.json`);
  return JSON.parse(new TextDecoder().decode(bytes)) as TableMetadata;
}

/** A metadata Avro file's records (a manifest list or a manifest); throws when it is missing or torn. */
export async function recordsOf<T>(storage: Storage, path: string): Promise<T[]> {
  return readAvroFile(await storage.files.read(path), path).records as unknown as T[];
}

/** The newest version in `folder`, checked as described above; undefined when there is none. */
export async function loadKnown(storage: Storage, folder: string): Promise<Known | undefined> {
  const sizes = new Map<string, number>();
  const versions: number[] = [];
  for (const f of await storage.files.list(`${folder}/`)) {
    sizes.set(f.path, f.size);
    const m = METADATA_FILE.exec(f.path.slice(folder.length + 1));
    if (m) versions.push(Number(m[1]));
  }
  const newest = versions.reduce((a, b) => Math.max(a, b), 0); // no spread: a folder may hold many
  if (newest === 0) return undefined;
  const unusable: Known = { version: newest, metadata: undefined, lists: new Map() };
  /** Whether a version older than any the newest's metadata-log names is still on disk. */
  const staleBelow = (metadata: TableMetadata) => {
    const first = metadata["metadata-log"][0]?.["metadata-file"];
    const oldest = first
      ? Number(METADATA_FILE.exec(inFolder(folder, first).slice(folder.length + 1))?.[1])
      : newest;
    return versions.some((v) => v < oldest);
  };
  try {
    const metadata = await readVersion(storage, folder, newest);
    const lists = metadata.snapshots.map((s) => inFolder(folder, s["manifest-list"]));
    if (!lists.every((path) => (sizes.get(path) ?? 0) > 0)) return unusable;
    const last = metadata.snapshots.at(-1);
    const stale = staleBelow(metadata);
    if (!last) return { version: newest, metadata, lists: new Map(), stale };
    const path = lists.at(-1)!;
    const manifests = await recordsOf<ManifestFile>(storage, path);
    const whole = manifests.every(
      (m) => sizes.get(inFolder(folder, m.manifest_path)) === Number(m.manifest_length),
    );
    if (!whole) return unusable;
    return { version: newest, metadata, lists: new Map([[last["snapshot-id"], manifests]]), stale };
  } catch {
    return unusable; // torn JSON or list: rebuilt whole as the next version
  }
}
