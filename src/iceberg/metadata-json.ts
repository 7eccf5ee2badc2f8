// The table metadata file's bytes, made incrementally. Its snapshot list and snapshot log grow with the
// history, and every new version repeats them unchanged but for the newest entries: serializing and UTF-8
// encoding the whole text again on each commit was most of the per-commit CPU once a table had a few hundred
// snapshots. So each list's bytes are kept in a growing buffer, found again by the list's first entry (later
// versions reuse the same entry objects), and a new version appends only its new entries' JSON.
//
// The snapshot list (about 600 bytes a snapshot, the bulk of the file) is not copied either: its buffer keeps
// room before the entries for the rest of the file's head and after them for the snapshot log, and the file
// is a view of that buffer. The work per version is then the new entries, the head and the log (about 50
// bytes a snapshot); joining the whole file into a new buffer cost as much as writing it out.
import { concatBytes } from "../util/bytes.js";
import { getOrCreate } from "../util/get-or-create.js";
import type { TableMetadata } from "./table-metadata.js";

const encoder = new TextEncoder();

/** A list's entries serialized so far, comma-joined, at [start, end) of a buffer with room on both sides. */
interface Joined {
  count: number;
  last: object;
  buffer: Uint8Array;
  start: number;
  end: number;
}

/** By the list's first entry: a list that lost its first entries (expired snapshots) starts a new buffer. */
const joinedByFirst = new WeakMap<object, Joined>();

/** Gives `joined` at least `before` free bytes before its entries and `after` after them. */
function reserve(joined: Joined, before: number, after: number): void {
  if (joined.start >= before && joined.buffer.length - joined.end >= after) return;
  const length = joined.end - joined.start;
  const start = Math.max(joined.start, before * 2);
  const grown = new Uint8Array(start + Math.max(length * 2, length + after * 2, 1024));
  grown.set(joined.buffer.subarray(joined.start, joined.end), start);
  joined.buffer = grown;
  joined.start = start;
  joined.end = start + length;
}

function append(joined: Joined, bytes: Uint8Array): void {
  reserve(joined, 0, bytes.length + 1);
  if (joined.end > joined.start) joined.buffer[joined.end++] = 0x2c; // ","
  joined.buffer.set(bytes, joined.end);
  joined.end += bytes.length;
}

/** The entries' JSON joined by commas (no brackets), only entries not yet serialized being encoded. */
function joinedOf(entries: readonly object[]): Joined | undefined {
  const first = entries[0];
  if (first === undefined) return undefined;
  let joined = joinedByFirst.get(first);
  if (!joined || joined.count > entries.length || entries[joined.count - 1] !== joined.last) {
    joined = { count: 0, last: first, buffer: new Uint8Array(1024), start: 0, end: 0 };
    joinedByFirst.set(first, joined);
  }
  for (let i = joined.count; i < entries.length; i++)
    append(joined, encoder.encode(JSON.stringify(entries[i])));
  joined.count = entries.length;
  joined.last = entries[entries.length - 1]!;
  return joined;
}

/**
 * The JSON of the head's values that stay the same objects version after version, by identity: the schemas,
 * the properties with their name mapping, and each metadata-log entry (the log's array is new each time,
 * its entries are not). Serializing them again was most of a version's cost after the snapshot list.
 * Metadata objects are never changed once made (table-metadata.ts). The other values are a few bytes.
 */
const texts = new WeakMap<object, string>();

const textOf = (value: object): string => getOrCreate(texts, value, () => JSON.stringify(value));

function headText(head: Omit<TableMetadata, "snapshots" | "snapshot-log">): string {
  const fields: string[] = [];
  for (const [key, value] of Object.entries(head)) {
    if (value === undefined) continue;
    const text =
      key === "schemas" || key === "properties"
        ? textOf(value as object)
        : key === "metadata-log"
          ? `[${(value as object[]).map(textOf).join(",")}]`
          : JSON.stringify(value);
    fields.push(`"${key}":${text}`);
  }
  return fields.join(",");
}

const view = (j: Joined | undefined) => (j ? j.buffer.subarray(j.start, j.end) : new Uint8Array(0));

/**
 * The same JSON as `JSON.stringify(metadata)`, but for the order of the fields (the lists come last).
 * The bytes are a view of a buffer the next version of the same table reuses: write them out before making
 * the next version (an export does; one export per table runs at a time, see lanes.ts).
 */
export function metadataBytes(metadata: TableMetadata): Uint8Array {
  const { snapshots, "snapshot-log": snapshotLog, ...head } = metadata;
  // The head is never empty (format-version, table-uuid, …): the lists follow a comma.
  const before = encoder.encode(`{${headText(head)},"snapshots":[`);
  const log = view(joinedOf(snapshotLog));
  const between = encoder.encode(`],"snapshot-log":[`);
  const close = encoder.encode("]}");
  const list = joinedOf(snapshots);
  if (!list) return concatBytes([before, between, log, close]);
  const after = between.length + log.length + close.length;
  reserve(list, before.length, after);
  const { buffer, start } = list;
  let end = list.end;
  buffer.set(before, start - before.length);
  for (const part of [between, log, close]) {
    buffer.set(part, end);
    end += part.length;
  }
  return buffer.subarray(start - before.length, end);
}
