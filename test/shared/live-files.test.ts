import { expect, it } from "vitest";
import { applySnapshotFiles, liveFilesOf } from "../../src/storage/catalog/history.js";
import type { DataFile, Snapshot } from "../../src/storage/catalog/model.js";

const file = (path: string): DataFile => ({ path, rowCount: 1, sizeBytes: 1, stats: {} });

function snapshot(
  n: number,
  operation: Snapshot["operation"],
  added: string[],
  removed: string[] = [],
): Snapshot {
  return {
    id: `s${n}`,
    parentId: n > 1 ? `s${n - 1}` : null,
    sequenceNumber: n,
    timestampMs: n,
    operation,
    addedFiles: added.map(file),
    removedFiles: removed,
    addedRows: added.length,
    removedRows: removed.length,
    totalRows: 0,
  };
}

it("liveFilesOf replays appends, compactions and overwrites as one applySnapshotFiles per snapshot would", () => {
  const base = [file("b1"), file("b2")];
  const snapshots: Snapshot[] = [];
  let n = 0;
  for (let round = 0; round < 5; round++) {
    for (let i = 0; i < 20; i++) snapshots.push(snapshot(++n, "append", [`a${n}`, `a${n}x`]));
    // a compaction of some of them: its file takes the place of the first one it replaced
    const replaced = snapshots
      .slice(-20)
      .filter((_, i) => i % 3 === 0)
      .map((s) => s.addedFiles[0]!.path);
    snapshots.push(snapshot(++n, "compact", [`c${n}`], replaced));
  }
  snapshots.push(snapshot(++n, "delete", [], ["b1"]));
  snapshots.push(snapshot(++n, "append", [`a${n}`]));

  let expected: DataFile[] = [...base];
  for (const s of snapshots) expected = applySnapshotFiles(expected, s);
  const live = liveFilesOf(snapshots, base);
  expect(live.map((f) => f.path)).toEqual(expected.map((f) => f.path));
  expect(live.map((f) => f.path)).toContain("c21");
  expect(live.map((f) => f.path)).not.toContain("b1");
  // the base is the caller's: replaying onto it leaves it as it was
  expect(base.map((f) => f.path)).toEqual(["b1", "b2"]);
  expect(liveFilesOf([], base)).not.toBe(base);
});
