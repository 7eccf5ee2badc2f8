// The table metadata file's bytes, made incrementally. Its snapshot list and snapshot log grow with the
// history, and every new version repeats them unchanged but for the newest entries: serializing and UTF-8
// encoding the whole text again on each commit was most of the per-commit CPU once a table had a few hundred
// snapshots. So each list's bytes are kept in a growing buffer, found again by the list's first entry (later
// versions reuse the same entry objects), and a new version appends only its new entries' JSON: the work per
// commit is the new entries plus one copy of the file's bytes, not a serialization of the whole history.
import { concatBytes } from "../util/bytes.js";
import type { TableMetadata } from "./table-metadata.js";

const encoder = new TextEncoder();

/** A list's entries serialized so far, comma-joined, in a buffer with room to grow. */
interface Joined {
  count: number;
  last: object;
  buffer: Uint8Array;
  length: number;
}

/** By the list's first entry: a list that lost its first entries (expired snapshots) starts a new buffer. */
const joinedByFirst = new WeakMap<object, Joined>();

function append(joined: Joined, bytes: Uint8Array): void {
  const needed = joined.length + bytes.length + 1;
  if (needed > joined.buffer.length) {
    const grown = new Uint8Array(Math.max(needed, joined.buffer.length * 2));
    grown.set(joined.buffer.subarray(0, joined.length));
    joined.buffer = grown;
  }
  if (joined.length > 0) joined.buffer[joined.length++] = 0x2c; // ","
  joined.buffer.set(bytes, joined.length);
  joined.length += bytes.length;
}

/** The entries' JSON joined by commas (no brackets): only entries not yet serialized are encoded. */
function joinedBytes(entries: readonly object[]): Uint8Array {
  const first = entries[0];
  if (first === undefined) return new Uint8Array(0);
  let joined = joinedByFirst.get(first);
  if (!joined || joined.count > entries.length || entries[joined.count - 1] !== joined.last) {
    joined = { count: 0, last: first, buffer: new Uint8Array(1024), length: 0 };
    joinedByFirst.set(first, joined);
  }
  for (let i = joined.count; i < entries.length; i++)
    append(joined, encoder.encode(JSON.stringify(entries[i])));
  joined.count = entries.length;
  joined.last = entries[entries.length - 1]!;
  return joined.buffer.subarray(0, joined.length);
}

/** The same JSON as `JSON.stringify(metadata)`, but for the order of the fields (the lists come last). */
export function metadataBytes(metadata: TableMetadata): Uint8Array {
  const { snapshots, "snapshot-log": snapshotLog, ...head } = metadata;
  return concatBytes([
    // The head is never empty (format-version, table-uuid, …): the lists follow a comma.
    encoder.encode(`${JSON.stringify(head).slice(0, -1)},"snapshots":[`),
    joinedBytes(snapshots),
    encoder.encode(`],"snapshot-log":[`),
    joinedBytes(snapshotLog),
    encoder.encode("]}"),
  ]);
}
