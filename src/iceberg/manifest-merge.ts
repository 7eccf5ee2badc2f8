// Which manifests an append's snapshot lists: Iceberg's fast append with its manifest merging
// (commit.manifest-merge.enabled, commit.manifest.min-count-to-merge). An append writes one manifest of its
// own files and lists the parent's manifests after it, so a list grows by one per append. Once the parent's
// list has `minCount` manifests, the append's manifest takes in the files of the parent's small ones — the
// one-snapshot manifests of earlier appends, whose files the catalog knows by snapshot (or, once that
// snapshot has expired, the export reads from the manifest: listing every live file afresh instead, as
// before, cost each merge under a retention the whole table's files) — as EXISTING entries, and the list
// keeps only the parent's merged ones. Each merge thus writes about `minCount` entries
// whatever the history's length, and a list stays under `minCount` manifests; when merged manifests alone
// reach that, the snapshot lists its live files afresh (export.ts), which happens once in thousands of
// appends. (Merging every manifest into one at each merge, as before, rewrote the whole history's files
// every `minCount` commits.)
import type { DataFile, Snapshot } from "../storage/catalog/model.js";
import { ADDED, EXISTING, type ManifestFile } from "./manifest-schemas.js";

/** The merge threshold (Iceberg's default). Tests lower it to reach merges of merges in a few commits. */
export const manifestMerging = { minCount: 100 };

export interface AppendManifests {
  /** The entries of the one manifest the append writes (none: it writes no manifest). */
  entries: { status: typeof ADDED | typeof EXISTING; file: DataFile; addedSequence: number }[];
  /** The parent's manifests the snapshot lists after it. */
  reused: ManifestFile[];
}

/** A one-snapshot append's manifest: nothing but the files that snapshot added. */
const isSmall = (m: ManifestFile) =>
  m.existing_files_count === 0 && m.deleted_files_count === 0 && m.added_files_count > 0;

/** The kept snapshot with sequence number `seq` (kept snapshots are in sequence order). */
function snapshotAt(kept: readonly Snapshot[], seq: number): Snapshot | undefined {
  let lo = 0;
  let hi = kept.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = kept[mid]!.sequenceNumber;
    if (at === seq) return kept[mid];
    if (at < seq) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

/**
 * The small manifests a merge after `parentList` would take in whose snapshots have expired: the catalog no
 * longer says which files they added, so the export reads them (their files are still live: only appends
 * came since the last fresh listing). None when no merge is due.
 */
export function expiredSmalls(
  parentList: readonly ManifestFile[],
  kept: readonly Snapshot[],
): ManifestFile[] {
  if (parentList.length < manifestMerging.minCount) return [];
  const oldest = kept[0]?.sequenceNumber ?? 0;
  return parentList.filter((m) => isSmall(m) && Number(m.added_snapshot_id) < oldest);
}

/**
 * The manifests of append `s` (it removed no file) after a parent listing `parentList`; undefined when
 * it must list its live files afresh: too many merged manifests, or a small manifest whose files are known
 * neither from its snapshot nor from `expiredFiles` (the files of expiredSmalls(), by snapshot, as read).
 */
export function appendManifests(
  s: Snapshot,
  parentList: readonly ManifestFile[],
  kept: readonly Snapshot[],
  expiredFiles: ReadonlyMap<number, readonly DataFile[]> = new Map(),
): AppendManifests | undefined {
  const own = s.addedFiles.map((file) => ({ status: ADDED, file, addedSequence: s.sequenceNumber }) as const);
  const { minCount } = manifestMerging;
  if (parentList.length < minCount) return { entries: own, reused: [...parentList] };
  const merged = parentList.filter((m) => !isSmall(m));
  if (merged.length + 1 >= minCount) return undefined;
  const entries: AppendManifests["entries"] = [...own];
  for (const m of parentList) {
    if (!isSmall(m)) continue;
    const sequence = Number(m.added_snapshot_id);
    const files = snapshotAt(kept, sequence)?.addedFiles ?? expiredFiles.get(sequence);
    if (!files || files.length !== m.added_files_count) return undefined;
    for (const file of files) entries.push({ status: EXISTING, file, addedSequence: sequence });
  }
  return { entries, reused: merged };
}
