// Iceberg metadata on the warehouse storage: data files and metadata in s3rver's bucket, the catalog in
// Postgres, and icebird reading the table straight from the S3 server over HTTP (path-style URLs, as a
// public bucket serves them) — every snapshot exactly our rows, time travel included.
import * as A from "apache-arrow";
import { icebergRead } from "icebird";
import { describe, expect, it } from "vitest";
import * as ava from "../../src/index.js";
import { previousVersions } from "../../src/iceberg/export.js";
import { expireTable } from "../../src/table/expire.js";
import { useWarehouseServers } from "./fixtures/warehouse-servers.js";

const { fresh, s3 } = useWarehouseServers();

const schema = new A.Schema([
  new A.Field("id", new A.Int64(), false),
  new A.Field("name", new A.Utf8(), true),
]);
const rows = (from: number, n: number) =>
  Array.from({ length: n }, (_, k) => ({
    id: BigInt(from + k),
    name: k % 3 === 0 ? null : `row ${from + k}`,
  }));

/** Rows as sorted text: icebird's and our spellings of the same values compare equal. */
const canonical = (read: readonly Record<string, unknown>[]) =>
  read.map((r) => JSON.stringify([String(r.id), r.name ?? null])).sort();

describe("Iceberg metadata on warehouseStorage", () => {
  it("icebird reads a table declared with iceberg from the S3 bucket: every snapshot, exactly", async () => {
    const { name, open } = fresh();
    const location = `${s3().endpoint}/${s3().bucket}/${name}`;
    const Lake = ava.defineNamespace({
      name: "lake",
      tables: { t: ava.table({ schema, iceberg: { location, background: false } }) },
    });
    const ns = await Lake.open({ storage: open() });
    await ns.push();
    const t = ns.t as unknown as ava.Table;
    await t.append(rows(0, 4));
    await t.append(rows(4, 3));
    await t.compact();
    await t.overwrite(rows(100, 2));
    await t.append(rows(200, 5));
    const snapshots = await t.history();
    expect(snapshots).toHaveLength(5);
    const tableUrl = `${location}/data/lake/t`;
    for (const [i, s] of snapshots.entries()) {
      const read = await icebergRead({ tableUrl, metadataFileName: `v${i + 1}.metadata.json` });
      expect(canonical(read), `snapshot ${i + 1} (${s.operation})`).toEqual(
        canonical(await t.scan({ snapshotId: s.id }).toObjects()),
      );
    }
    // The version hint names the newest version: a reader without a version reads the table as it is.
    expect(canonical(await icebergRead({ tableUrl }))).toEqual(canonical(await t.scan().toObjects()));
  });

  it("expired snapshots' manifest lists and manifests leave the bucket once no retained version lists them", async () => {
    const { name, open } = fresh();
    const location = `${s3().endpoint}/${s3().bucket}/${name}`;
    const Lake = ava.defineNamespace({
      name: "lake",
      tables: { t: ava.table({ schema, iceberg: { location, background: false }, inline: false }) },
    });
    const ns = await Lake.open({ storage: open() });
    await ns.push();
    const t = ns.t as unknown as ava.Table;
    const saved = previousVersions.max;
    previousVersions.max = 2; // versions listing the expired snapshots leave the log in two exports
    try {
      for (let i = 0; i < 5; i++) await t.append(rows(i * 10, 2));
      const expired = (await t.history()).slice(0, -2).map((s) => s.sequenceNumber);
      await expireTable(ns.storage, "lake", "t", { maxAgeMs: 0, minSnapshots: 2 });
      for (let i = 5; i < 8; i++) await t.append(rows(i * 10, 2));
      const files = await ns.storage.files.list("data/lake/t/metadata/");
      const lists = files.map((f) => /\/snap-(\d+)-[^/]*\.avro$/.exec(f.path)?.[1]).filter((s) => s);
      expect(lists.map(Number).filter((seq) => expired.includes(seq))).toEqual([]);
      expect(lists).toHaveLength(5); // the kept snapshots, 4 to 8, and no other
      const kept = await t.history();
      const tableUrl = `${location}/data/lake/t`;
      const { metadataPath } = await ava.exportIceberg(ns.storage, "lake", "t", { location });
      const metadata = JSON.parse(new TextDecoder().decode(await ns.storage.files.read(metadataPath)));
      for (const s of kept) {
        const read = await icebergRead({
          tableUrl,
          metadata: { ...metadata, "current-snapshot-id": s.sequenceNumber },
        });
        expect(canonical(read)).toEqual(canonical(await t.scan({ snapshotId: s.id }).toObjects()));
      }
    } finally {
      previousVersions.max = saved;
    }
  });
});
