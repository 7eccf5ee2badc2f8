// A checkpoint's history line, kept between checkpoints (checkpoint-history-line.ts), must be byte for byte
// what JSON.stringify of the whole snapshot list gives, with that line's CRC-32, however the history changed
// since the last checkpoint: appended to, snapshots replaced in place (a flush), cut at the front (an
// expiry), shortened, or a different history altogether.
import { describe, expect, it } from "vitest";
import { crc32 } from "../../src/avro/crc32.js";
import { historyLine } from "../../src/storage/catalog/checkpoint-history-line.js";
import { deserializeState, serializeState } from "../../src/storage/catalog/checkpoint.js";
import type { Snapshot } from "../../src/storage/catalog/model.js";
import { AvaError } from "../../src/errors.js";

function snapshot(n: number, note = ""): Snapshot {
  return {
    id: `s${n}`,
    parentId: n > 0 ? `s${n - 1}` : null,
    sequenceNumber: n,
    timestampMs: 1_000 + n,
    operation: "append",
    addedFiles: [{ path: `data/t/${n}${note}.inline`, rowCount: 10, sizeBytes: 100, stats: {} }],
    removedFiles: [],
    addedRows: 10,
    removedRows: 0,
    totalRows: 10 * (n + 1),
  };
}

/** Byte equality without Node's Buffer (this file runs in Chromium too). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function expectExact(snapshots: Snapshot[]) {
  const wanted = new TextEncoder().encode(JSON.stringify(snapshots));
  const { bytes, crc } = historyLine(snapshots);
  expect(sameBytes(bytes, wanted)).toBe(true);
  expect(crc).toBe(crc32(wanted));
}

describe("historyLine", () => {
  it("writes what JSON.stringify writes, as the history grows, is flushed, expires and shrinks", () => {
    let history: Snapshot[] = [];
    expectExact(history);
    for (let n = 0; n < 300; n++) {
      history = [...history, snapshot(n)];
      if (n % 37 === 0) expectExact(history);
    }
    expectExact(history);
    // A flush replaces snapshots in the middle with new objects (with non-ASCII text: UTF-8 of 2–4 bytes).
    history = history.map((s, i) => (i >= 250 && i < 280 ? snapshot(i, "·flushed→ 🧊") : s));
    expectExact(history);
    history = [...history, snapshot(300, "é")];
    expectExact(history);
    // Shorter than what the cache holds (another state of the same table, behind this one).
    expectExact(history.slice(0, 120));
    expectExact(history);
    // An expiry: a new first snapshot.
    history = history.slice(100);
    expectExact(history);
    expectExact([snapshot(0)]);
  });

  it("keeps a serialized checkpoint readable, and a damaged history line is caught by its CRC", () => {
    const snapshots = Array.from({ length: 50 }, (_, n) => snapshot(n));
    const state = {
      version: 7,
      namespaces: { ns: { name: "ns", createdMs: 1 } },
      tables: {},
      runs: { toJSON: () => ({}) },
      streams: {},
      cursors: {},
      outboxes: {},
    } as unknown as Parameters<typeof serializeState>[0];
    // The same history serialized twice (the second from the cache) gives the same bytes.
    const history = { snapshots, length: snapshots.length, current: snapshots.at(-1) };
    Object.assign(state.tables, {
      "ns.t": {
        namespace: "ns",
        name: "t",
        uuid: "u",
        schema: [],
        rowLineage: false,
        properties: {},
        createdMs: 1,
        history,
      },
    });
    const first = serializeState(state, 5);
    const again = serializeState(state, 5);
    expect(sameBytes(again, first)).toBe(true);
    const corrupt = (what: string, cause: unknown) =>
      new AvaError("DATA_CORRUPT", `checkpoint: ${what}: ${String(cause)}`);
    const back = deserializeState(first, corrupt);
    expect(back.tables["ns.t"]!.history.snapshots).toEqual(snapshots);
    const damaged = first.slice();
    const at = damaged.indexOf(0x0a) + 20; // inside the history line
    damaged[at] = damaged[at] === 0x31 ? 0x32 : 0x31;
    expect(() => deserializeState(damaged, corrupt)).toThrowError(/fails its CRC-32/);
  });
});
