// A table's snapshot list as a checkpoint line (`[s1,s2,…]`, what JSON.stringify(snapshots) writes) and
// its CRC-32, kept between checkpoints so that a checkpoint serializes only the snapshots committed since
// the last one. Serializing the whole list each time cost a Worker 10–30 ms per checkpoint and grew with
// the history (~400 bytes a flushed snapshot): most of it JSON.stringify and UTF-8 encoding of snapshots
// that had not changed. Snapshots are immutable once committed — a flush or an expiry makes new objects
// (history.withFlushed, expire) — so a snapshot's bytes are reused while the same object sits at the same
// place, and the line's CRC is extended from the last reused one. What is written is byte for byte what
// JSON.stringify(snapshots) gives: the checkpoint format does not change.
import { crc32 } from "../../avro/crc32.js";
import type { Snapshot } from "./model.js";

const OPEN = 0x5b; // [
const COMMA = 0x2c;
const CLOSE = 0x5d; // ]

interface LineCache {
  /** The snapshots whose bytes `bytes` holds, in order. */
  snapshots: Snapshot[];
  /** After each snapshot: where its bytes end, and the CRC-32 of the line up to there. */
  ends: number[];
  crcs: number[];
  bytes: Uint8Array;
}

/** By a history's first snapshot: a new first snapshot (an expiry) starts a new line. */
const lines = new WeakMap<Snapshot, LineCache>();
const encoder = new TextEncoder();

/**
 * The line of `snapshots` and its CRC-32. The bytes are a view of the cache, valid until the next call:
 * copy them before serializing another checkpoint.
 */
export function historyLine(snapshots: readonly Snapshot[]): { bytes: Uint8Array; crc: number } {
  const first = snapshots[0];
  if (!first) {
    const bytes = Uint8Array.of(OPEN, CLOSE);
    return { bytes, crc: crc32(bytes) };
  }
  let cache = lines.get(first);
  if (!cache) {
    // Grown as needed (doubling): a catalog of many small tables keeps about their lines' bytes, no more.
    cache = { snapshots: [], ends: [], crcs: [], bytes: new Uint8Array(0) };
    lines.set(first, cache);
  }
  let kept = 0;
  const same = Math.min(cache.snapshots.length, snapshots.length);
  while (kept < same && cache.snapshots[kept] === snapshots[kept]) kept++;
  cache.snapshots.length = cache.ends.length = cache.crcs.length = kept;
  let end = kept > 0 ? cache.ends[kept - 1]! : 0;
  let crc = kept > 0 ? cache.crcs[kept - 1]! : 0;
  for (let i = kept; i < snapshots.length; i++) {
    const json = JSON.stringify(snapshots[i]);
    // UTF-8 takes at most 3 bytes per UTF-16 unit; one more for the separator, one for the closing "]".
    cache.bytes = withRoom(cache.bytes, end, json.length * 3 + 2);
    const start = end;
    cache.bytes[end++] = i === 0 ? OPEN : COMMA;
    end += encoder.encodeInto(json, cache.bytes.subarray(end)).written;
    crc = crc32(cache.bytes.subarray(start, end), crc);
    cache.snapshots.push(snapshots[i]!);
    cache.ends.push(end);
    cache.crcs.push(crc);
  }
  cache.bytes = withRoom(cache.bytes, end, 1);
  cache.bytes[end] = CLOSE; // past the last snapshot's end: the next call writes over it
  return { bytes: cache.bytes.subarray(0, end + 1), crc: crc32(cache.bytes.subarray(end, end + 1), crc) };
}

function withRoom(bytes: Uint8Array, used: number, more: number): Uint8Array {
  if (used + more <= bytes.length) return bytes;
  const grown = new Uint8Array(Math.max(bytes.length * 2, used + more));
  grown.set(bytes.subarray(0, used));
  return grown;
}
