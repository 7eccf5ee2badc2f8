// Iceberg v2 metadata read by independent implementations: icebird (npm) reads our tables over HTTP — the
// data and every snapshot by time travel must be exactly our rows — and Apache Avro's Python reads the
// manifests and manifest lists with the spec's own schemas as reader schemas (field ids, required fields).
import { execFileSync } from "node:child_process";
import { createReadStream } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, truncate } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as A from "apache-arrow";
import { DuckDBInstance } from "@duckdb/node-api";
import { icebergRead } from "icebird";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import * as ava from "../../src/index.js";
import { nodeStorage } from "../../src/node.js";
import { previousVersions } from "../../src/iceberg/export.js";
import { manifestMerging } from "../../src/iceberg/manifest-merge.js";
import { expireTable } from "../../src/table/expire.js";
import { Transaction } from "../../src/table/transaction.js";
import { exited, startTsx } from "./fixtures/child-process.js";

const PYTHON = "/usr/bin/python3";
const EXPIRY_CHILD = join(import.meta.dirname, "fixtures", "iceberg-expiry-child.ts");

// ---- a static file server over one folder (icebird reads through fetch, as it would from S3) ----
let served: string;
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  served = await mkdtemp(join(tmpdir(), "ava-iceberg-"));
  server = createServer((req, res) => {
    const path = join(served, decodeURIComponent(new URL(req.url!, "http://x").pathname));
    stat(path).then(
      (s) => {
        const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
        const start = range ? Number(range[1]) : 0;
        const end = range?.[2] ? Math.min(Number(range[2]), s.size - 1) : s.size - 1;
        res.writeHead(range ? 206 : 200, {
          "content-length": end - start + 1,
          ...(range ? { "content-range": `bytes ${start}-${end}/${s.size}` } : {}),
        });
        if (req.method === "HEAD" || end < start) return res.end(); // an empty file has no range to stream
        createReadStream(path, { start, end }).pipe(res);
      },
      () => {
        res.writeHead(404);
        res.end();
      },
    );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

let folders = 0;
async function freshRoot(): Promise<{ root: string; location: string }> {
  const name = `t${++folders}`;
  await mkdir(join(served, name));
  return { root: join(served, name), location: `${baseUrl}/${name}` };
}

// ---- a schema of many types, with the provenance columns ----
const schema = new A.Schema([
  new A.Field("id", new A.Int64(), false),
  new A.Field("small", new A.Int32(), true),
  new A.Field("ratio", new A.Float32(), true),
  new A.Field("value", new A.Float64(), true),
  new A.Field("name", new A.Utf8(), true),
  new A.Field("ok", new A.Bool(), true),
  new A.Field("blob", new A.Binary(), true),
  new A.Field("at", new A.TimestampMicrosecond("UTC"), true),
  new A.Field("kind", new A.Dictionary(new A.Utf8(), new A.Int32()), true),
  new A.Field(
    "point",
    new A.Struct([new A.Field("x", new A.Float64(), true), new A.Field("label", new A.Utf8(), true)]),
    true,
  ),
  new A.Field("samples", new A.List(new A.Field("item", new A.Float64(), true)), true),
]);

function rows(from: number, n: number): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return {
      id: BigInt(i),
      small: i % 3 === 0 ? null : i * 7,
      ratio: i / 4,
      value: i * 1.5,
      name: i % 4 === 0 ? null : `row ${i} ü`,
      ok: i % 2 === 0,
      blob: new Uint8Array([i % 100, (i + 1) % 100, 0x41]), // ASCII: see canonical()
      at: new Date(Date.UTC(2026, 0, 1) + i * 1000),
      kind: ["a", "b", "c"][i % 3],
      point: i % 5 === 0 ? null : { x: i / 2, label: `p${i}` },
      samples: i % 6 === 0 ? null : [i, i + 0.5],
    };
  });
}

/** Values as plain JSON, so that our reader's and icebird's spellings of the same value compare equal. */
function plain(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : v;
  if (v instanceof Date) return v.getTime();
  if (v instanceof Uint8Array) return [...v].join(",");
  if (Array.isArray(v) || (typeof v === "object" && Symbol.iterator in (v as object)))
    return [...(v as Iterable<unknown>)].map(plain);
  if (typeof v === "object") {
    const o = v as Record<string, unknown>;
    const json = typeof o.toJSON === "function" ? (o.toJSON as () => Record<string, unknown>)() : o;
    return Object.fromEntries(
      Object.keys(json)
        .sort()
        .map((k) => [k, plain(json[k])]),
    );
  }
  return v;
}

function canonical(rowsIn: readonly Record<string, unknown>[]): string[] {
  return rowsIn
    .map((r) => {
      // Timestamps compare in ms: icebird's Dates hold no microseconds.
      // hyparquet reads a Binary column (BYTE_ARRAY without annotation) as text: compare its bytes.
      const o = plain(
        typeof r.blob === "string" ? { ...r, blob: new TextEncoder().encode(r.blob) } : r,
      ) as Record<string, unknown>;
      if (typeof o._ava_updated_at === "string")
        o._ava_updated_at = Math.floor(Number(o._ava_updated_at) / 1000);
      return JSON.stringify(o);
    })
    .sort();
}

async function ours(t: ava.Table, snapshotId: string): Promise<string[]> {
  return canonical(await t.scan({ snapshotId }).toObjects());
}

/**
 * The namespace, its table writing Iceberg metadata before each commit returns (a version per commit) with
 * the served URL of the storage root. Not inlined: these tests read each commit's own data file (inlined
 * appends have their own test below).
 */
function lake(location: string) {
  return ava.defineNamespace({
    name: "lake",
    tables: { events: ava.table({ schema, iceberg: { location, background: false }, inline: false }) },
  });
}

/** Appends, a compaction, an overwrite, more appends: one snapshot each. Returns the snapshots in order. */
async function history(events: ava.Table): Promise<ava.Snapshot[]> {
  await events.append(rows(0, 3));
  await events.append(rows(3, 2));
  await events.append(rows(5, 4));
  await events.compact();
  await events.append(rows(9, 1));
  await events.overwrite(rows(100, 3));
  await events.append(rows(200, 2));
  return events.history();
}

/** A fresh lake table (see lake()), pushed, in a fresh folder served at `location`. */
async function openLake() {
  const { root, location } = await freshRoot();
  const ns = await lake(location).open({ storage: nodeStorage({ root, fsync: false }) });
  await ns.push();
  return { root, location, events: ns.events as unknown as ava.Table };
}

/**
 * Time travel by snapshot id: icebird, given `metadata` with each snapshot as the current one, reads exactly
 * our rows at that snapshot.
 */
async function expectEverySnapshot(
  tableUrl: string,
  metadata: Record<string, unknown>,
  table: ava.Table,
  snapshots: readonly ava.Snapshot[],
): Promise<void> {
  for (const s of snapshots) {
    const read = await icebergRead({
      tableUrl,
      metadata: { ...metadata, "current-snapshot-id": s.sequenceNumber } as never,
    });
    expect(canonical(read), `snapshot ${s.sequenceNumber} (${s.operation})`).toEqual(await ours(table, s.id));
  }
}

/** A lake table through history(), its newest metadata, and the local path of a URI the metadata names. */
async function lakeWithHistory() {
  const { root, location, events } = await openLake();
  const snapshots = await history(events);
  const folder = join(root, "data/lake/events/metadata");
  const metadata = JSON.parse(await readFile(join(folder, `v${snapshots.length}.metadata.json`), "utf8"));
  const local = (uri: string) => join(root, uri.slice(location.length + 1));
  return { location, events, snapshots, metadata, local };
}

// ---- the spec's manifest schemas (table spec v2, "Manifests" and "Manifest Lists"), typed in from its tables ----
type SpecField = [name: string, id: number, required: boolean, type: unknown];
/** The spec's map<int, T> in Avro: an optional array of key/value records named k<key>_v<value>. */
function idMap(name: string, id: number, keyId: number, valueId: number, value: string): SpecField[] {
  const kv = {
    type: "record",
    name: `k${keyId}_v${valueId}`,
    fields: [
      { name: "key", type: "int", "field-id": keyId },
      { name: "value", type: value, "field-id": valueId },
    ],
  };
  return [[name, id, false, { type: "array", logicalType: "map", items: kv }]];
}
const DATA_FILE: SpecField[] = [
  ["content", 134, true, "int"],
  ["file_path", 100, true, "string"],
  ["file_format", 101, true, "string"],
  ["partition", 102, true, { type: "record", name: "r102", fields: [] }],
  ["record_count", 103, true, "long"],
  ["file_size_in_bytes", 104, true, "long"],
  ...idMap("column_sizes", 108, 117, 118, "long"),
  ...idMap("value_counts", 109, 119, 120, "long"),
  ...idMap("null_value_counts", 110, 121, 122, "long"),
  ...idMap("lower_bounds", 125, 126, 127, "bytes"),
  ...idMap("upper_bounds", 128, 129, 130, "bytes"),
];
const MANIFEST_ENTRY: SpecField[] = [
  ["status", 0, true, "int"],
  ["snapshot_id", 1, false, "long"],
  ["sequence_number", 3, false, "long"],
  ["file_sequence_number", 4, false, "long"],
  ["data_file", 2, true, { type: "record", name: "r2", fields: avroFields(DATA_FILE) }],
];
const MANIFEST_FILE: SpecField[] = [
  ["manifest_path", 500, true, "string"],
  ["manifest_length", 501, true, "long"],
  ["partition_spec_id", 502, true, "int"],
  ["content", 517, true, "int"],
  ["sequence_number", 515, true, "long"],
  ["min_sequence_number", 516, true, "long"],
  ["added_snapshot_id", 503, true, "long"],
  ["added_files_count", 504, true, "int"],
  ["existing_files_count", 505, true, "int"],
  ["deleted_files_count", 506, true, "int"],
  ["added_rows_count", 512, true, "long"],
  ["existing_rows_count", 513, true, "long"],
  ["deleted_rows_count", 514, true, "long"],
];

function avroFields(fields: SpecField[]): unknown[] {
  return fields.map(([name, id, required, type]) =>
    required ? { name, type, "field-id": id } : { name, type: ["null", type], default: null, "field-id": id },
  );
}

/**
 * Apache Avro's Python reads each file with the spec's schema as its reader schema (a missing required
 * field, or one of another type, fails schema resolution), and reports the file's own schema's field ids.
 */
const READ_WITH_SPEC = `
import json, sys, avro.datafile, avro.io, avro.schema
spec = avro.schema.parse(sys.argv[1])
out = []
for path in sys.argv[2:]:
    with open(path, "rb") as f:
        r = avro.datafile.DataFileReader(f, avro.io.DatumReader(readers_schema=spec))
        meta = {k: v.decode() for k, v in r.meta.items() if k != "avro.sync"}
        records = list(r)
    def ids(t):
        if isinstance(t, list): return [ids(x) for x in t if x != "null"][0]
        if isinstance(t, dict) and t.get("type") == "record":
            return {f["name"]: {"id": f.get("field-id"), "type": ids(f["type"])} for f in t["fields"]}
        return t if isinstance(t, str) else t.get("type")
    out.append({"path": path, "meta": meta, "ids": ids(json.loads(meta["avro.schema"])), "records": records})
print(json.dumps(out, default=lambda b: b.hex()))  # bytes (bounds) as hex
`;

interface PyFile {
  path: string;
  meta: Record<string, string>;
  ids: Record<string, unknown>;
  records: Record<string, unknown>[];
}

function readWithSpec(name: string, fields: SpecField[], paths: string[]): PyFile[] {
  const spec = JSON.stringify({ type: "record", name, fields: avroFields(fields) });
  return JSON.parse(
    execFileSync(PYTHON, ["-c", READ_WITH_SPEC, spec, ...paths], { encoding: "utf8", maxBuffer: 1 << 28 }),
  );
}

/**
 * Checks that the metadata folder holds exactly what the versions on disk lead to: each version's manifest
 * lists, the manifests those name and the Parquet copies of inlined rows those name (read with Apache
 * Avro against the spec's schemas), every one of which exists. Returns how many such files there are.
 */
async function expectOnlyReferencedFiles(root: string, location: string, folder: string): Promise<number> {
  const local = (uri: string) => join(root, uri.slice(location.length + 1));
  const names = await readdir(folder, { recursive: true });
  const lists = new Set<string>();
  for (const name of names.filter((n) => n.endsWith(".metadata.json")))
    for (const s of JSON.parse(await readFile(join(folder, name), "utf8")).snapshots)
      lists.add(local(s["manifest-list"]));
  const manifests = new Set<string>();
  for (const list of readWithSpec("manifest_file", MANIFEST_FILE, [...lists]))
    for (const m of list.records) manifests.add(local(m.manifest_path as string));
  const copies = new Set<string>();
  for (const manifest of readWithSpec("manifest_entry", MANIFEST_ENTRY, [...manifests]))
    for (const e of manifest.records) {
      const path = local((e.data_file as { file_path: string }).file_path);
      if (path.startsWith(join(folder, "inline"))) copies.add(path);
    }
  const onDisk = names
    .filter((n) => n.endsWith(".avro") || n.endsWith(".parquet"))
    .map((n) => join(folder, n))
    .sort();
  expect(onDisk).toEqual([...lists, ...manifests, ...copies].sort());
  return onDisk.length;
}

/** The field ids the spec gives, as READ_WITH_SPEC reports a file's own schema. */
function specIds(fields: SpecField[]): Record<string, unknown> {
  return Object.fromEntries(
    fields.map(([name, id, , type]) => [
      name,
      {
        id,
        type:
          name === "data_file"
            ? specIds(DATA_FILE)
            : name === "partition"
              ? {}
              : typeof type === "string"
                ? type
                : (type as { type: string }).type,
      },
    ]),
  );
}

describe("Iceberg metadata written on every commit", () => {
  it("icebird reads exactly our rows at every snapshot (time travel by metadata version and by snapshot id)", async () => {
    const { root, location, events } = await openLake();
    const snapshots = await history(events);
    expect(snapshots.map((s) => s.operation)).toEqual([
      "append",
      "append",
      "append",
      "compact",
      "append",
      "overwrite",
      "append",
    ]);
    const tableUrl = `${location}/data/lake/events`;
    for (const [i, s] of snapshots.entries()) {
      const expected = await ours(events, s.id);
      // One metadata version per commit: v(i+1) is the table as of snapshot i.
      const atVersion = await icebergRead({ tableUrl, metadataFileName: `v${i + 1}.metadata.json` });
      expect(canonical(atVersion), `snapshot ${i + 1} (${s.operation})`).toEqual(expected);
    }
    // The newest metadata describes every snapshot: time travel by snapshot id (= sequence number).
    const latest = JSON.parse(
      await readFile(join(root, "data/lake/events/metadata/version-hint.text"), "utf8").then((v) =>
        readFile(join(root, `data/lake/events/metadata/v${v.trim()}.metadata.json`), "utf8"),
      ),
    );
    expect(
      latest.snapshots.map((s: { summary: Record<string, string> }) => s.summary["avalanche.snapshot-id"]),
    ).toEqual(snapshots.map((s) => s.id));
    await expectEverySnapshot(tableUrl, latest, events, snapshots);
    expect(canonical(await icebergRead({ tableUrl }))).toEqual(canonical(await events.scan().toObjects()));
  });

  it("manifests and manifest lists read with Apache Avro (Python) against the spec's schemas", async () => {
    const { location, events, snapshots, metadata, local } = await lakeWithHistory();
    const lists = readWithSpec(
      "manifest_file",
      MANIFEST_FILE,
      metadata.snapshots.map((s: { "manifest-list": string }) => local(s["manifest-list"])),
    );
    for (const [i, list] of lists.entries()) {
      const s = snapshots[i]!;
      expect(list.ids).toMatchObject(specIds(MANIFEST_FILE));
      expect(list.meta).toMatchObject({ "format-version": "2", "snapshot-id": String(s.sequenceNumber) });
      const manifests = readWithSpec(
        "manifest_entry",
        MANIFEST_ENTRY,
        list.records.map((m) => local(m.manifest_path as string)),
      );
      const live: string[] = [];
      for (const [k, manifest] of manifests.entries()) {
        expect(manifest.ids).toEqual(specIds(MANIFEST_ENTRY));
        expect(manifest.meta).toMatchObject({
          "format-version": "2",
          content: "data",
          "partition-spec": "[]",
          "partition-spec-id": "0",
        });
        expect(JSON.parse(manifest.meta.schema!)["schema-id"]).toBe(0);
        const counts = [0, 1, 2].map((st) => manifest.records.filter((e) => e.status === st).length);
        expect(counts).toEqual([
          list.records[k]!.existing_files_count,
          list.records[k]!.added_files_count,
          list.records[k]!.deleted_files_count,
        ]);
        for (const e of manifest.records) {
          const file = e.data_file as Record<string, unknown>;
          expect(file.file_format).toBe("PARQUET");
          // Only ADDED entries may leave their sequence numbers to inheritance.
          if (e.status !== 1) expect(e.sequence_number).toEqual(expect.any(Number));
          if (e.status !== 2) live.push(file.file_path as string);
        }
      }
      // The manifests' live entries are exactly the snapshot's files.
      const ourFiles = (await events.scan({ snapshotId: s.id }).plan()).files.map(
        (f: { path: string }) => `${location}/${f.path}`,
      );
      expect(live.sort()).toEqual(ourFiles.sort());
    }
  });
});

/** A bound in Iceberg's single-value serialization, decoded by the column's Iceberg type. */
function decodeBound(type: string, hex: string): unknown {
  const b = Buffer.from(hex, "hex");
  const sizes: Record<string, number> = { int: 4, float: 4, long: 8, double: 8, timestamptz: 8, boolean: 1 };
  if (sizes[type] !== undefined) expect(b.length, `${type} bound of ${b.length} bytes`).toBe(sizes[type]);
  if (type === "int") return b.readInt32LE();
  if (type === "long" || type === "timestamptz") return b.readBigInt64LE();
  if (type === "float") return b.readFloatLE();
  if (type === "double") return b.readDoubleLE();
  if (type === "boolean") return b[0] !== 0;
  if (type === "string") return b.toString("utf8");
  throw new Error(`no bound expected for type ${type}`);
}

/** A catalog stat as the value it stands for. */
function statValue(v: unknown): unknown {
  if (typeof v === "object" && v !== null && "bigint" in v) return BigInt((v as { bigint: string }).bigint);
  if (typeof v === "object" && v !== null && "float" in v) return Number((v as { float: string }).float);
  return v;
}

describe("metadata written without fsync", () => {
  it("a version torn by power loss (a manifest it names, or its own JSON) is rewritten whole by the next export", async () => {
    const { root, location, events } = await openLake();
    for (const [from, n] of [
      [0, 3],
      [3, 2],
      [5, 4],
    ] as const)
      await events.append(rows(from, n));
    const folder = join(root, "data/lake/events/metadata");
    const tableUrl = `${location}/data/lake/events`;
    const local = (uri: string) => join(root, uri.slice(location.length + 1));
    const version = async (v: number) =>
      JSON.parse(await readFile(join(folder, `v${v}.metadata.json`), "utf8"));
    const lists = (m: { snapshots: { "manifest-list": string }[] }) =>
      m.snapshots.map((s) => s["manifest-list"]);
    // A process after the power loss: nothing in memory, only what is on disk.
    const afterPowerLoss = async () => {
      const ns = await lake(location).open({ storage: nodeStorage({ root, fsync: false }) });
      return ns.events as unknown as ava.Table;
    };

    // v3's JSON reached the disk, the newest snapshot's own manifest did not.
    const v3 = await version(3);
    const [list] = readWithSpec("manifest_file", MANIFEST_FILE, [local(v3.snapshots[2]["manifest-list"])]);
    const torn = list!.records.find((m) => m.added_snapshot_id === 3)!.manifest_path as string;
    await truncate(local(torn), Math.floor((await stat(local(torn))).size / 2));
    await expect(icebergRead({ tableUrl })).rejects.toThrow();
    await (await afterPowerLoss()).append(rows(9, 1));
    const v4 = await version(4);
    // Every snapshot got new files: none of v3's lists is reused (one of them names the torn manifest).
    expect(lists(v4).filter((l) => lists(v3).includes(l))).toEqual([]);
    const snapshots = await events.history();
    expect(snapshots).toHaveLength(4);
    await expectEverySnapshot(tableUrl, v4, events, snapshots);
    expect(canonical(await icebergRead({ tableUrl }))).toEqual(canonical(await events.scan().toObjects()));

    // Now v4's JSON is torn (half its bytes) and the hint is gone: v5 describes every snapshot again.
    const v4Path = join(folder, "v4.metadata.json");
    await truncate(v4Path, Math.floor((await stat(v4Path)).size / 2));
    await rm(join(folder, "version-hint.text"));
    await (await afterPowerLoss()).append(rows(10, 2));
    expect(await readFile(join(folder, "version-hint.text"), "utf8")).toBe("5");
    const v5 = await version(5);
    expect(lists(v5).filter((l) => lists(v4).includes(l))).toEqual([]);
    const all = await events.history();
    expect(
      v5.snapshots.map((s: { summary: Record<string, string> }) => s.summary["avalanche.snapshot-id"]),
    ).toEqual(all.map((s) => s.id));
    await expectEverySnapshot(tableUrl, v5, events, all);
  });
});

/** Each column's compressed bytes in a Parquet file (its chunks summed), read by native DuckDB. */
async function parquetColumnBytes(path: string): Promise<Map<string, number>> {
  const rows = await nativeDuckRows<{ path: string; bytes: bigint }>(
    `SELECT path_in_schema AS path, sum(total_compressed_size)::BIGINT AS bytes FROM parquet_metadata('${path}') GROUP BY 1`,
  );
  return new Map(rows.map((r) => [r.path, Number(r.bytes)]));
}

describe("column metrics in manifests", () => {
  it("every live file's bounds, counts and column sizes, read with Apache Avro, are exactly its catalog statistics (sizes: its Parquet footer as DuckDB reads it)", async () => {
    const { location, events, snapshots, metadata, local } = await lakeWithHistory();
    const fields = new Map<string, { id: number; type: unknown }>(
      metadata.schemas[0].fields.map((f: { name: string; id: number; type: unknown }) => [f.name, f]),
    );
    let checked = 0;
    const columnsWithBounds = new Set<string>();
    for (const [i, s] of snapshots.entries()) {
      const [list] = readWithSpec("manifest_file", MANIFEST_FILE, [
        local(metadata.snapshots[i]["manifest-list"]),
      ]);
      const manifests = readWithSpec(
        "manifest_entry",
        MANIFEST_ENTRY,
        list!.records.map((m) => local(m.manifest_path as string)),
      );
      const ourFiles = new Map(
        (await events.scan({ snapshotId: s.id }).plan()).files.map((f) => [`${location}/${f.path}`, f]),
      );
      for (const e of manifests.flatMap((m) => m.records)) {
        if (e.status === 2) continue;
        const file = e.data_file as Record<string, unknown>;
        const ours = ourFiles.get(file.file_path as string);
        expect(ours, `${file.file_path} is live at snapshot ${i + 1}`).toBeDefined();
        const byId = (name: string) =>
          new Map((file[name] as { key: number; value: unknown }[]).map((kv) => [kv.key, kv.value]));
        const [sizes, values, nulls, lower, upper] = [
          byId("column_sizes"),
          byId("value_counts"),
          byId("null_value_counts"),
          byId("lower_bounds"),
          byId("upper_bounds"),
        ];
        const statColumns = Object.keys(ours!.stats);
        expect(statColumns).toEqual(
          expect.arrayContaining(["id", "name", "at", "_ava_updated_at", "_ava_run_id"]),
        );
        expect([...values.keys()].sort()).toEqual(statColumns.map((c) => fields.get(c)!.id).sort());
        // Appended and compacted files (this table inlines nothing) know every scalar column's bytes.
        expect([...sizes.keys()].sort()).toEqual([...values.keys()].sort());
        const footer = await parquetColumnBytes(local(file.file_path as string));
        for (const [column, stat] of Object.entries(ours!.stats)) {
          const { id, type } = fields.get(column)!;
          expect(values.get(id), column).toBe(ours!.rowCount);
          expect(sizes.get(id), `${column} bytes`).toBe(stat.bytes);
          expect(stat.bytes, `${column} bytes`).toBe(footer.get(column));
          expect(nulls.get(id), column).toBe(stat.nullCount);
          expect(lower.has(id), column).toBe(stat.min !== undefined);
          expect(upper.has(id), column).toBe(stat.max !== undefined);
          if (stat.min !== undefined) {
            columnsWithBounds.add(column);
            expect(decodeBound(type as string, lower.get(id) as string), `${column} lower`).toEqual(
              statValue(stat.min),
            );
          }
          if (stat.max !== undefined)
            expect(decodeBound(type as string, upper.get(id) as string), `${column} upper`).toEqual(
              statValue(stat.max),
            );
        }
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(snapshots.length);
    // Every scalar type has bounds somewhere, provenance columns included.
    expect([...columnsWithBounds].sort()).toEqual(
      expect.arrayContaining([
        "id",
        "small",
        "ratio",
        "value",
        "name",
        "ok",
        "at",
        "kind",
        "_ava_updated_at",
      ]),
    );
    // Readers still read every snapshot exactly with the metrics there.
    const tableUrl = `${location}/data/lake/events`;
    await expectEverySnapshot(tableUrl, metadata, events, snapshots);
  });
});

/** Every field id a schema (or a nested type) assigns, element ids of lists included. */
function schemaIds(type: unknown): number[] {
  if (typeof type !== "object" || type === null) return [];
  const t = type as {
    type: string;
    fields?: { id: number; type: unknown }[];
    "element-id"?: number;
    element?: unknown;
  };
  if (t.type === "list") return [t["element-id"]!, ...schemaIds(t.element)];
  return (t.fields ?? []).flatMap((f) => [f.id, ...schemaIds(f.type)]);
}

/** Each Parquet schema element of a file with its field id, read by native DuckDB. */
function parquetFieldIds(path: string): Promise<{ name: string; field_id: number | null }[]> {
  return nativeDuckRows(`SELECT name, field_id::INTEGER AS field_id FROM parquet_schema('${path}')`);
}

/** The rows of one query in a throwaway in-memory native DuckDB (no extensions fetched). */
async function nativeDuckRows<T>(sql: string): Promise<T[]> {
  const db = await DuckDBInstance.create(":memory:", {
    autoinstall_known_extensions: "false",
    autoload_known_extensions: "false",
  });
  const conn = await db.connect();
  try {
    return (await conn.runAndReadAll(sql)).getRowObjects() as T[];
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

/**
 * The file carries every id of the Iceberg schema, nested fields, list elements and provenance columns
 * included, and no other; a top-level column's id sits on the element of its name.
 */
async function expectFieldIds(path: string, icebergSchema: { fields: { name: string; id: number }[] }) {
  const elements = await parquetFieldIds(path);
  const ids = elements.flatMap((e) => (e.field_id === null ? [] : [e.field_id]));
  expect(
    ids.sort((a, b) => a - b),
    path,
  ).toEqual(schemaIds(icebergSchema).sort((a, b) => a - b));
  for (const f of icebergSchema.fields)
    expect(elements.find((e) => e.name === f.name)?.field_id, `${path}: ${f.name}`).toBe(f.id);
}

describe("Parquet field ids", () => {
  it("data files of a table with Iceberg metadata carry the schema's field ids (read back by native DuckDB)", async () => {
    const { root, location, events } = await openLake();
    await events.append(rows(0, 7));
    const [file] = (await events.scan().plan()).files;
    const folder = join(root, "data/lake/events/metadata");
    const metadata = JSON.parse(await readFile(join(folder, "v1.metadata.json"), "utf8"));
    await expectFieldIds(join(root, file!.path), metadata.schemas[0]);
    // Our reader and icebird still read the rows exactly.
    const tableUrl = `${location}/data/lake/events`;
    expect(canonical(await icebergRead({ tableUrl }))).toEqual(canonical(await events.scan().toObjects()));
    const ours = await events.scan({ columns: ["id", "name", "point", "samples"] }).toObjects();
    expect(canonical(ours)).toEqual(
      canonical(rows(0, 7).map(({ id, name, point, samples }) => ({ id, name, point, samples }))),
    );
  });

  it("so do the files compaction and the flush of inlined appends write, and the export's copies of inlined rows", async () => {
    const { root, location } = await freshRoot();
    const Inlined = ava.defineNamespace({
      name: "lake",
      tables: { events: ava.table({ schema, iceberg: { location }, inline: true }) },
    });
    const storage = nodeStorage({ root, fsync: false });
    const ns = await Inlined.open({ storage });
    await ns.push();
    const events = ns.events as unknown as ava.Table;
    const folder = join(root, "data/lake/events/metadata");
    const icebergSchema = async () => {
      const { metadataPath } = await ava.exportIceberg(storage, "lake", "events", { location });
      return JSON.parse(await readFile(join(root, metadataPath), "utf8")).schemas[0];
    };
    const liveFile = async () => {
      const files = (await events.scan().plan()).files;
      expect(files).toHaveLength(1);
      expect(files[0]!.path).toMatch(/\.parquet$/);
      return join(root, files[0]!.path);
    };

    for (let i = 0; i < 3; i++) await events.append(rows(i * 5, 2)); // inlined: rows in the catalog only
    // The export wrote each inlined append's rows out as a Parquet file of its own for the manifests.
    await icebergSchema();
    const copies = await readdir(join(folder, "inline"));
    expect(copies).toHaveLength(3);
    for (const copy of copies) await expectFieldIds(join(folder, "inline", copy), await icebergSchema());

    const flushed = await ns.maintain({ flush: { maxRows: 1 }, compact: false, retain: false });
    expect(flushed.inlinedFlushed).toBe(3);
    await expectFieldIds(await liveFile(), await icebergSchema());

    await events.append(rows(50, 20)); // more than 10 rows: data files
    await events.append(rows(80, 20));
    expect((await events.compact()).filesRemoved).toBe(3);
    await expectFieldIds(await liveFile(), await icebergSchema());

    // icebird reads exactly our rows at every snapshot, the flushed and compacted files included.
    const tableUrl = `${location}/data/lake/events`;
    const { metadataPath } = await ava.exportIceberg(storage, "lake", "events", { location });
    const metadata = JSON.parse(await readFile(join(root, metadataPath), "utf8"));
    const snapshots = await events.history();
    expect(snapshots.map((s) => s.operation)).toEqual([
      "append",
      "append",
      "append",
      "compact",
      "append",
      "append",
      "compact",
    ]);
    await expectEverySnapshot(tableUrl, metadata, events, snapshots);
  });

  it("a table Iceberg cannot describe still compacts, into files without field ids", async () => {
    const { root } = await freshRoot();
    const unsigned = new A.Schema([new A.Field("n", new A.Uint32(), true)]);
    const ns = await ava
      .defineNamespace({ name: "u", tables: { t: ava.table({ schema: unsigned }) } })
      .open({ storage: nodeStorage({ root, fsync: false }) });
    await ns.push();
    const t = ns.t as unknown as ava.Table;
    await t.append([{ n: 1 }, { n: 2 }]);
    await t.append([{ n: 3 }]);
    expect((await t.compact()).filesRemoved).toBe(2);
    const [file] = (await t.scan().plan()).files;
    expect((await parquetFieldIds(join(root, file!.path))).every((e) => e.field_id === null)).toBe(true);
    expect((await t.scan().toObjects()).map((r) => r.n)).toEqual([1, 2, 3]);
  });
});

describe("concurrent commits and writers", () => {
  it("background metadata (the default): commits in quick succession share versions, and exportIceberg() waits for it", async () => {
    const { root, location } = await freshRoot();
    expect(ava.table({ schema, iceberg: true }).iceberg).toEqual({ background: true });
    const Fast = ava.defineNamespace({
      name: "fast",
      tables: { t: ava.table({ schema, iceberg: { location } }) },
    });
    const ns = await Fast.open({ storage: nodeStorage({ root, fsync: false }) });
    await ns.push();
    const t = ns.t as unknown as ava.Table;
    await Promise.all(Array.from({ length: 12 }, (_, i) => t.append(rows(i * 10, 3))));
    const { version } = await ava.exportIceberg(ns.storage, "fast", "t", { location });
    expect(version).toBeLessThanOrEqual(12);
    const read = await icebergRead({ tableUrl: `${location}/data/fast/t` });
    expect(read).toHaveLength(36);
    expect(canonical(read)).toEqual(canonical(await t.scan().toObjects()));

    // Sequential commits, as an app makes them: the metadata follows on its own, without an export call.
    for (let i = 0; i < 8; i++) await t.append(rows(1000 + i * 10, 2));
    const hint = join(root, "data/fast/t/metadata/version-hint.text");
    const latest = async () => {
      const v = await readFile(hint, "utf8").catch(() => "");
      if (!v) return undefined;
      return JSON.parse(await readFile(join(root, `data/fast/t/metadata/v${v}.metadata.json`), "utf8"));
    };
    const deadline = Date.now() + 10_000;
    while ((await latest())?.snapshots.length !== 20 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    const metadata = await latest();
    expect(metadata.snapshots).toHaveLength(20);
    expect(canonical(await icebergRead({ tableUrl: `${location}/data/fast/t` }))).toEqual(
      canonical(await t.scan().toObjects()),
    );
  });

  it("a workflow node's writes (one transaction over two tables) get their metadata when they commit", async () => {
    const { root, location } = await freshRoot();
    const Node = ava.defineNamespace({
      name: "wf",
      tables: {
        a: ava.table({ schema, iceberg: { location, background: false } }),
        b: ava.table({ schema, iceberg: { location, background: false } }),
      },
    });
    const ns = await Node.open({ storage: nodeStorage({ root, fsync: false }) });
    await ns.push();
    const tx = new Transaction(ns.storage);
    await (ns.a as unknown as ava.Table).inTransaction(tx).append(rows(0, 2));
    await (ns.a as unknown as ava.Table).inTransaction(tx).append(rows(2, 2));
    await (ns.b as unknown as ava.Table).inTransaction(tx).append(rows(10, 3));
    await tx.commit();
    expect(await icebergRead({ tableUrl: `${location}/data/wf/a` })).toHaveLength(4);
    expect(await icebergRead({ tableUrl: `${location}/data/wf/b` })).toHaveLength(3);
  });

  it("two writers (two processes' storages) racing for the same metadata version both land", async () => {
    const { root, location } = await freshRoot();
    const Two = ava.defineNamespace({ name: "two", tables: { t: ava.table({ schema }) } });
    const [a, b] = [nodeStorage({ root, fsync: false }), nodeStorage({ root, fsync: false })];
    const nsA = await Two.open({ storage: a });
    await nsA.push();
    const nsB = await Two.open({ storage: b });
    await nsA.t.append(rows(0, 2) as never);
    await nsB.t.append(rows(10, 2) as never);
    const results = await Promise.all([
      ava.exportIceberg(a, "two", "t", { location }),
      ava.exportIceberg(b, "two", "t", { location }),
    ]);
    // The loser of v1 re-reads it: it describes both snapshots already, so it has nothing to add.
    expect(results.map((r) => r.version)).toEqual([1, 1]);
    expect(results.map((r) => r.snapshotsWritten).sort()).toEqual([0, 2]);
    await nsB.t.append(rows(20, 2) as never);
    expect(await ava.exportIceberg(a, "two", "t", { location })).toMatchObject({
      version: 2,
      snapshotsWritten: 1,
    });
    expect(canonical(await icebergRead({ tableUrl: `${location}/data/two/t` }))).toEqual(
      canonical(await (nsA.t as unknown as ava.Table).scan().toObjects()),
    );
  });
});

/** A table of one int column `id` in namespace `name`, pushed, on a fresh Node storage. */
async function idTable(name: string, options: { rowLineage?: boolean } = {}) {
  const { root, location } = await freshRoot();
  const storage = nodeStorage({ root, fsync: false });
  const schema = new A.Schema([new A.Field("id", new A.Int32(), false)]);
  const ns = await ava
    .defineNamespace({ name, tables: { t: ava.table({ schema, ...options }) } })
    .open({ storage });
  await ns.push();
  return { root, location, storage, t: ns.t as unknown as ava.Table };
}

describe("exportIceberg() of any table", () => {
  const Plain = ava.defineNamespace({
    name: "plain",
    tables: { small: ava.table({ schema, inline: true }) },
  });

  it("exports inlined appends and a history with expired snapshots, then catches up incrementally", async () => {
    const { root, location } = await freshRoot();
    const storage = nodeStorage({ root, fsync: false });
    const ns = await Plain.open({ storage });
    await ns.push();
    const small = ns.small as unknown as ava.Table;
    for (let i = 0; i < 5; i++) await small.append(rows(i * 10, 2 + i)); // inlined: no data file
    await small.compact();
    await small.append(rows(90, 3));
    const before = await small.history();
    const expired = await expireTable(storage, "plain", "small", { maxAgeMs: 0, minSnapshots: 3 });
    expect(expired.expired).toBe(before.length - 3);
    const kept = await small.history();

    const first = await ava.exportIceberg(storage, "plain", "small", { location });
    expect(first).toEqual({
      metadataPath: "data/plain/small/metadata/v1.metadata.json",
      version: 1,
      snapshotsWritten: 3,
    });
    const tableUrl = `${location}/data/plain/small`;
    const metadata = JSON.parse(await readFile(join(root, first.metadataPath), "utf8"));
    // Expired snapshots are not described; the kept ones are, by their sequence numbers.
    expect(metadata.snapshots.map((s: { "snapshot-id": number }) => s["snapshot-id"])).toEqual(
      kept.map((s) => s.sequenceNumber),
    );
    await expectEverySnapshot(tableUrl, metadata, small, kept);

    // Nothing new: nothing written. Then two appends: two snapshots more, in version 2, reusing manifests.
    expect((await ava.exportIceberg(storage, "plain", "small", { location })).snapshotsWritten).toBe(0);
    await small.append(rows(300, 20));
    await small.append(rows(400, 1));
    const second = await ava.exportIceberg(storage, "plain", "small", { location });
    expect(second).toMatchObject({ version: 2, snapshotsWritten: 2 });
    expect(await readFile(join(root, "data/plain/small/metadata/version-hint.text"), "utf8")).toBe("2");
    expect(canonical(await icebergRead({ tableUrl }))).toEqual(canonical(await small.scan().toObjects()));
    // A fresh process (no metadata held in memory) reads the metadata back and goes on from it.
    const again = nodeStorage({ root, fsync: false });
    await small.append(rows(500, 4));
    expect(await ava.exportIceberg(again, "plain", "small", { location })).toMatchObject({
      version: 3,
      snapshotsWritten: 1,
    });
    expect(canonical(await icebergRead({ tableUrl }))).toEqual(canonical(await small.scan().toObjects()));

    // Snapshots the last version describes expire: the next version describes the rest and reuses their files.
    await expireTable(storage, "plain", "small", { maxAgeMs: 0, minSnapshots: 2 });
    await small.append(rows(600, 2));
    const fourth = await ava.exportIceberg(storage, "plain", "small", { location });
    expect(fourth).toMatchObject({ version: 4, snapshotsWritten: 1 });
    const v4 = JSON.parse(await readFile(join(root, fourth.metadataPath), "utf8"));
    const remaining = await small.history();
    expect(remaining).toHaveLength(3);
    expect(v4.snapshots.map((s: { "snapshot-id": number }) => s["snapshot-id"])).toEqual(
      remaining.map((s) => s.sequenceNumber),
    );
    expect(v4["snapshot-log"].map((s: { "snapshot-id": number }) => s["snapshot-id"])).toEqual(
      remaining.map((s) => s.sequenceNumber),
    );
    await expectEverySnapshot(tableUrl, v4, small, remaining);

    // vacuum() leaves the metadata alone; dropping the table removes it.
    await ava.vacuum(storage, { olderThanMs: 0 });
    expect(canonical(await icebergRead({ tableUrl }))).toEqual(canonical(await small.scan().toObjects()));
    await small.drop();
    const left = await readdir(join(root, "data/plain/small/metadata"), {
      recursive: true,
      withFileTypes: true,
    });
    expect(left.filter((f) => f.isFile())).toEqual([]);
  });

  it("merges manifests once a snapshot's list reaches 100 (lists stay bounded, reads stay exact)", async () => {
    const { root, location, storage, t } = await idTable("many", { rowLineage: false });
    for (let i = 0; i < 104; i++) await t.append([{ id: i }]);
    const { metadataPath } = await ava.exportIceberg(storage, "many", "t", { location });
    const metadata = JSON.parse(await readFile(join(root, metadataPath), "utf8"));
    const lengths = readWithSpec(
      "manifest_file",
      MANIFEST_FILE,
      metadata.snapshots
        .slice(97)
        .map((s: { "manifest-list": string }) => join(root, s["manifest-list"].slice(location.length + 1))),
    ).map((l) => l.records.length);
    expect(lengths).toEqual([98, 99, 100, 1, 2, 3, 4]);
    const tableUrl = `${location}/data/many/t`;
    const history = await t.history();
    for (const at of [99, 100, 101, 103]) {
      const read = await icebergRead({ tableUrl, metadata: { ...metadata, "current-snapshot-id": at } });
      expect(read.map((r) => r.id).sort((a, b) => a - b)).toEqual(Array.from({ length: at }, (_, i) => i));
      expect(history[at - 1]!.sequenceNumber).toBe(at);
    }
  });

  it("keeps the 100 earlier versions its metadata-log names and deletes older ones (Iceberg's delete-after-commit)", async () => {
    const { root, location, storage, t } = await idTable("versions", { rowLineage: false });
    let last = 0;
    for (let i = 0; i < 103; i++) {
      await t.append([{ id: i }]);
      last = (await ava.exportIceberg(storage, "versions", "t", { location })).version;
    }
    expect(last).toBe(103);
    const folder = join(root, "data/versions/t/metadata");
    const versions = (await readdir(folder))
      .map((f) => /^v(\d+)\.metadata\.json$/.exec(f)?.[1])
      .filter((v) => v !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
    expect(versions).toEqual(Array.from({ length: 101 }, (_, i) => i + 3)); // v3 … v103
    const metadata = JSON.parse(await readFile(join(folder, "v103.metadata.json"), "utf8"));
    const logged = metadata["metadata-log"].map((e: { "metadata-file": string }) =>
      e["metadata-file"].slice(e["metadata-file"].lastIndexOf("/") + 1),
    );
    expect(logged).toEqual(Array.from({ length: 100 }, (_, i) => `v${i + 3}.metadata.json`));
    // Time travel is unchanged: every snapshot is in the current version.
    const read = await icebergRead({
      tableUrl: `${location}/data/versions/t`,
      metadata: { ...metadata, "current-snapshot-id": 2 },
    });
    expect(read.map((r) => r.id).sort((a, b) => a - b)).toEqual([0, 1]);
  });

  it("merges only the small manifests, and lists the live files afresh once merged ones fill a list", async () => {
    expect(manifestMerging.minCount).toBe(100);
    manifestMerging.minCount = 4; // the tiers in 18 appends instead of thousands
    try {
      const { root, location, storage, t } = await idTable("tiers");
      for (let i = 0; i < 15; i++) await t.append([{ id: i }]);
      await ava.exportIceberg(storage, "tiers", "t", { location });
      // A fresh process goes on from the lists on disk, and merges manifests it read back (at 18).
      const again = nodeStorage({ root, fsync: false });
      for (let i = 15; i < 18; i++) await t.append([{ id: i }]);
      const { metadataPath } = await ava.exportIceberg(again, "tiers", "t", { location });
      const metadata = JSON.parse(await readFile(join(root, metadataPath), "utf8"));
      const local = (uri: string) => join(root, uri.slice(location.length + 1));
      const lists = readWithSpec(
        "manifest_file",
        MANIFEST_FILE,
        metadata.snapshots.map((s: { "manifest-list": string }) => local(s["manifest-list"])),
      );
      // Appends 5, 9 and 12 merge the small manifests into one (the merged ones stay as they are); at 14 the
      // merged ones alone would fill the list, so it lists every live file in one manifest.
      expect(lists.map((l) => l.records.length)).toEqual([
        1, 2, 3, 4, 1, 2, 3, 4, 2, 3, 4, 3, 4, 1, 2, 3, 4, 2,
      ]);
      const files = (m: Record<string, unknown>) =>
        (m.added_files_count as number) + (m.existing_files_count as number);
      expect([5, 9, 12, 14, 18].map((at) => files(lists[at - 1]!.records[0]!))).toEqual([5, 4, 3, 14, 4]);
      expect(lists.map((l) => l.records.reduce((n, m) => n + files(m), 0))).toEqual(
        Array.from({ length: 18 }, (_, i) => i + 1),
      );
      await expectEverySnapshot(`${location}/data/tiers/t`, metadata, t, await t.history());
    } finally {
      manifestMerging.minCount = 100;
    }
  });

  it("names every file by its file:// URI on a Node storage when no location is given", async () => {
    const { root } = await freshRoot();
    const storage = nodeStorage({ root, fsync: false });
    const ns = await Plain.open({ storage });
    await ns.push();
    await ns.small.append(rows(0, 30) as never);
    const { metadataPath } = await ava.exportIceberg(storage, "plain", "small");
    const metadata = JSON.parse(await readFile(join(root, metadataPath), "utf8"));
    expect(metadata.location).toBe(`file://${join(root, "data/plain/small")}`);
    expect(metadata.snapshots[0]["manifest-list"]).toMatch(
      new RegExp(`^file://${join(root, "data/plain/small/metadata")}/snap-1-\\w+\\.avro$`),
    );
    expect(metadata["format-version"]).toBe(2);
    expect(metadata["table-uuid"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("describes columns by field id with a name mapping, renames included", async () => {
    const { root, location } = await freshRoot();
    const storage = nodeStorage({ root, fsync: false });
    const v0 = ava.defineNamespace({
      name: "evo",
      tables: { t: ava.table({ schema: new A.Schema([new A.Field("a", new A.Int64(), false)]) }) },
    });
    const ns0 = await v0.open({ storage });
    await ns0.push();
    await ns0.t.append([{ a: 1n }] as never);
    const v1 = ava.defineNamespace({
      name: "evo",
      tables: {
        t: ava.table({
          schema: new A.Schema([
            new A.Field("b", new A.Int64(), false),
            new A.Field("tags", new A.List(new A.Field("item", new A.Utf8(), true)), true),
          ]),
          renames: { b: "a" },
        }),
      },
    });
    const ns1 = await v1.open({ storage });
    await ns1.push();
    await ns1.t.append([{ b: 2n, tags: ["x"] }] as never);
    const { metadataPath } = await ava.exportIceberg(storage, "evo", "t", { location });
    const metadata = JSON.parse(await readFile(join(root, metadataPath), "utf8"));
    expect(metadata["current-schema-id"]).toBe(1);
    expect(
      metadata.schemas.map((s: { fields: { id: number; name: string }[] }) => s.fields.slice(0, 2)),
    ).toEqual([
      [
        { id: 1, name: "a", required: true, type: "long" },
        { id: 1_000_000_000, name: "_ava_updated_at", required: true, type: "timestamptz" },
      ],
      [
        { id: 1, name: "b", required: true, type: "long" },
        {
          id: 2,
          name: "tags",
          required: false,
          type: { type: "list", "element-id": 131_073, element: "string", "element-required": false },
        },
      ],
    ]);
    const mapping = JSON.parse(metadata.properties["schema.name-mapping.default"]);
    expect(mapping.slice(0, 3)).toEqual([
      { "field-id": 1, names: ["a", "b"] },
      { "field-id": 2, names: ["tags"], fields: [{ "field-id": 131_073, names: ["element", "item"] }] },
      { "field-id": 1_000_000_000, names: ["_ava_updated_at"] },
    ]);
    expect(metadata["last-column-id"]).toBe(1_000_000_008);
    expect(metadata.snapshots.map((s: { "schema-id": number }) => s["schema-id"])).toEqual([0, 1]);
    // Metrics by field id: the file written as "a" and the one written as "b" both report on id 1.
    const local = (uri: string) => join(root, uri.slice(location.length + 1));
    const [list] = readWithSpec("manifest_file", MANIFEST_FILE, [
      local(metadata.snapshots[1]["manifest-list"]),
    ]);
    const entries = readWithSpec(
      "manifest_entry",
      MANIFEST_ENTRY,
      list!.records.map((m) => local(m.manifest_path as string)),
    ).flatMap((m) => m.records.map((e) => e.data_file as Record<string, { key: number; value: string }[]>));
    const bounds = entries.map((f) => f.lower_bounds!.find((kv) => kv.key === 1)?.value);
    expect(bounds.map((hex) => decodeBound("long", hex!)).sort()).toEqual([1n, 2n]);
  });

  it("refuses a missing table, a type Iceberg cannot describe, and a location that is no URI", async () => {
    const { root } = await freshRoot();
    const storage = nodeStorage({ root, fsync: false });
    await expect(ava.exportIceberg(storage, "nope", "missing")).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: expect.stringContaining("nope.missing"),
    });
    const Telemetry = ava.defineNamespace({
      name: "tm",
      tables: { points: ava.table({ schema: ava.avro.avroStreamArrowSchema }) },
    });
    const ns = await Telemetry.open({ storage });
    await ns.push();
    await expect(ava.exportIceberg(storage, "tm", "points")).rejects.toMatchObject({
      code: "UNSUPPORTED_TYPE",
      message: expect.stringMatching(
        /table tm\.points: column "timestamp" has type timestamp\(ns, UTC\).*v3/,
      ),
    });
    expect(() => ava.table({ schema: ava.avro.avroStreamArrowSchema, iceberg: true })).toThrow(
      expect.objectContaining({ code: "UNSUPPORTED_TYPE", message: expect.stringContaining('"timestamp"') }),
    );
    expect(() =>
      ava.table({ schema: new A.Schema([new A.Field("n", new A.Uint32(), true)]), iceberg: true }),
    ).toThrow(
      expect.objectContaining({ code: "UNSUPPORTED_TYPE", message: expect.stringMatching(/"n".*unsigned/) }),
    );
    expect(() => ava.table({ schema, iceberg: { background: "yes" as never } })).toThrow(
      expect.objectContaining({ code: "INVALID_ARGUMENT", message: expect.stringContaining("background") }),
    );
    const Ok = ava.defineNamespace({ name: "ok", tables: { t: ava.table({ schema }) } });
    await (await Ok.open({ storage })).push();
    // A table without snapshots has metadata too: schemas, no current snapshot.
    const empty = await ava.exportIceberg(storage, "ok", "t");
    const metadata = JSON.parse(await readFile(join(root, empty.metadataPath), "utf8"));
    expect(metadata).toMatchObject({ snapshots: [], "last-sequence-number": 0 });
    expect(metadata["current-snapshot-id"]).toBeUndefined();
    await expect(ava.exportIceberg(storage, "ok", "t", { location: "bucket/prefix" })).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
      message: expect.stringContaining("s3://bucket/prefix"),
    });
  });
});

describe("files of expired snapshots", () => {
  const schema = new A.Schema([new A.Field("id", new A.Int32(), false)]);
  const Expiry = ava.defineNamespace({ name: "expiry", tables: { t: ava.table({ schema, inline: false }) } });
  /** Versions the metadata-log keeps here: versions that list expired snapshots leave it in a few exports. */
  const VERSIONS = 3;

  /**
   * A table with 10 snapshots, a version each, merged manifests (some outlive the snapshots that wrote them),
   * all but the newest 3 snapshots expired. `step` appends a row and exports; `expectOnlyReferenced` checks
   * that every .avro file on disk is a list a version still on disk names or a manifest such a list names,
   * and that each of those exists.
   */
  async function expiredTable() {
    const { root, location } = await freshRoot();
    const storage = nodeStorage({ root, fsync: false });
    const ns = await Expiry.open({ storage });
    await ns.push();
    const t = ns.t as unknown as ava.Table;
    const folder = join(root, "data/expiry/t/metadata");
    const local = (uri: string) => join(root, uri.slice(location.length + 1));
    const expectOnlyReferenced = async () => {
      const names = await readdir(folder);
      const lists = new Set<string>();
      for (const name of names.filter((n) => n.endsWith(".metadata.json")))
        for (const s of JSON.parse(await readFile(join(folder, name), "utf8")).snapshots)
          lists.add(local(s["manifest-list"]));
      const referenced = new Set(lists);
      for (const list of readWithSpec("manifest_file", MANIFEST_FILE, [...lists]))
        for (const m of list.records) referenced.add(local(m.manifest_path as string));
      const avro = names.filter((n) => n.endsWith(".avro")).map((n) => join(folder, n));
      expect(avro.sort()).toEqual([...referenced].sort());
      return avro.length;
    };
    const step = async (id: number, store = storage) => {
      await t.append([{ id }]);
      const { metadataPath } = await ava.exportIceberg(store, "expiry", "t", { location });
      return JSON.parse(await readFile(join(root, metadataPath), "utf8"));
    };
    /** The sequence numbers of the manifest lists on disk. */
    const listsOnDisk = async () =>
      (await readdir(folder)).filter((n) => /^snap-\d+-/.test(n)).map((n) => Number(n.split("-")[1]));
    for (let i = 0; i < 10; i++) {
      await step(i);
      await expectOnlyReferenced();
    }
    const all = await t.history();
    await expireTable(storage, "expiry", "t", { maxAgeMs: 0, minSnapshots: 3 });
    const expired = all.slice(0, -3).map((s) => s.sequenceNumber);
    const tableUrl = `${location}/data/expiry/t`;
    return { root, location, tableUrl, t, step, expectOnlyReferenced, listsOnDisk, expired };
  }

  /** A table with 10 snapshots, a version each (nothing expired). */
  async function expiredTableNoExpiry() {
    const { root, location } = await freshRoot();
    const storage = nodeStorage({ root, fsync: false });
    const ns = await Expiry.open({ storage });
    await ns.push();
    const t = ns.t as unknown as ava.Table;
    const step = async (id: number, store = storage) => {
      await t.append([{ id }]);
      const { metadataPath } = await ava.exportIceberg(store, "expiry", "t", { location });
      return JSON.parse(await readFile(join(root, metadataPath), "utf8"));
    };
    for (let i = 0; i < 10; i++) await step(i);
    return { root, location, tableUrl: `${location}/data/expiry/t`, t, step };
  }

  let saved: [number, number];
  beforeEach(() => {
    saved = [previousVersions.max, manifestMerging.minCount];
    previousVersions.max = VERSIONS;
    manifestMerging.minCount = 4;
  });
  afterEach(() => {
    [previousVersions.max, manifestMerging.minCount] = saved;
  });

  it("deletes expired snapshots' lists and the manifests only they name, once no retained version lists them", async () => {
    const { root, tableUrl, t, step, expectOnlyReferenced, listsOnDisk, expired } = await expiredTable();
    const before = await expectOnlyReferenced();
    let metadata = await step(10);
    await expectOnlyReferenced();
    // The versions before the expiry still list its snapshots: their files stay while the log names them.
    expect(await listsOnDisk()).toEqual(expect.arrayContaining(expired));
    // A fresh process (nothing held in memory) goes on, and deletes them once they leave the log.
    const fresh = nodeStorage({ root, fsync: false });
    for (let i = 11; i < 11 + VERSIONS; i++) {
      metadata = await step(i, fresh);
      await expectOnlyReferenced();
    }
    const kept = await t.history();
    // Expired snapshots are absent from the metadata, and their files from the disk.
    expect(metadata.snapshots.map((s: { "snapshot-id": number }) => s["snapshot-id"])).toEqual(
      kept.map((s) => s.sequenceNumber),
    );
    expect((await listsOnDisk()).filter((seq) => expired.includes(seq))).toEqual([]);
    expect(await expectOnlyReferenced()).toBeLessThan(before);
    // Time travel to every kept snapshot reads exactly our rows (merged manifests of expired snapshots too).
    await expectEverySnapshot(tableUrl, metadata, t, kept);
  });

  it("merges the small manifests of expired snapshots by reading them, instead of listing every live file afresh", async () => {
    const { root, location } = await freshRoot();
    const storage = nodeStorage({ root, fsync: false });
    const ns = await Expiry.open({ storage });
    await ns.push();
    const t = ns.t as unknown as ava.Table;
    const local = (uri: string) => join(root, uri.slice(location.length + 1));
    let metadata: { snapshots: { "manifest-list": string }[] } = { snapshots: [] };
    const step = async (id: number) => {
      await t.append([{ id }]);
      const { metadataPath } = await ava.exportIceberg(storage, "expiry", "t", { location });
      metadata = JSON.parse(await readFile(join(root, metadataPath), "utf8"));
    };
    for (let i = 1; i <= 7; i++) await step(i); // 5 merged 1–5; 6 and 7 are small
    await expireTable(storage, "expiry", "t", { maxAgeMs: 0, minSnapshots: 1 }); // 6's snapshot expires
    for (let i = 8; i <= 9; i++) await step(i); // 9 merges 6, 7 and 8
    const [list] = readWithSpec("manifest_file", MANIFEST_FILE, [
      local(metadata.snapshots.at(-1)!["manifest-list"]),
    ]);
    expect(
      list!.records.map((m) => [m.added_snapshot_id, m.added_files_count, m.existing_files_count]),
    ).toEqual([
      [9, 1, 3],
      [5, 1, 4],
    ]);
    await expectEverySnapshot(`${location}/data/expiry/t`, metadata, t, await t.history());
  });

  it("a process killed with SIGKILL midway through the deletion leaves valid metadata; the next export finishes it", async () => {
    const { root, location, tableUrl, t, step, expectOnlyReferenced, listsOnDisk, expired } =
      await expiredTable();
    for (let i = 10; i < 10 + VERSIONS; i++) await step(i);
    // The next export's metadata-log no longer names a version listing the expired snapshots: it deletes.
    const killed = await exited(
      startTsx(EXPIRY_CHILD, [root, location, String(10 + VERSIONS), String(VERSIONS)]),
    );
    expect(killed.signal, killed.stderr).toBe("SIGKILL");
    const folder = join(root, "data/expiry/t/metadata");
    const newest = Math.max(
      ...(await readdir(folder)).map((n) => Number(/^v(\d+)\.metadata\.json$/.exec(n)?.[1] ?? 0)),
    );
    const metadata = JSON.parse(await readFile(join(folder, `v${newest}.metadata.json`), "utf8"));
    const kept = await t.history();
    expect(metadata.snapshots.map((s: { "snapshot-id": number }) => s["snapshot-id"])).toEqual(
      kept.map((s) => s.sequenceNumber),
    );
    await expectEverySnapshot(tableUrl, metadata, t, kept);
    expect((await listsOnDisk()).filter((seq) => expired.includes(seq)).length).toBeGreaterThan(0);
    // The next export (another process) deletes what is left.
    await step(100, nodeStorage({ root, fsync: false }));
    await expectOnlyReferenced();
    expect((await listsOnDisk()).filter((seq) => expired.includes(seq))).toEqual([]);
  }, 60_000);

  it("deletes the Parquet copies of inlined rows once no retained version's manifests name them", async () => {
    const { root, location } = await freshRoot();
    const storage = nodeStorage({ root, fsync: false });
    const Inlined = ava.defineNamespace({
      name: "expiry",
      tables: { t: ava.table({ schema, inline: true }) },
    });
    const ns = await Inlined.open({ storage });
    await ns.push();
    const t = ns.t as unknown as ava.Table;
    const folder = join(root, "data/expiry/t/metadata");
    const step = async (id: number) => {
      await t.append([{ id }]);
      const { metadataPath } = await ava.exportIceberg(storage, "expiry", "t", { location });
      return JSON.parse(await readFile(join(root, metadataPath), "utf8"));
    };
    const copies = async () => (await readdir(join(folder, "inline")).catch(() => [])).sort();
    for (let i = 0; i < 4; i++) await step(i); // inlined appends: each gets a Parquet copy
    const first = await copies();
    expect(first).toHaveLength(4);
    await expectOnlyReferencedFiles(root, location, folder);
    await t.compact(); // their rows move into a data file: the copies stay while versions name them
    await ava.exportIceberg(storage, "expiry", "t", { location });
    expect(await copies()).toEqual(first);
    // The compaction's manifest names the copies (DELETED entries), and appends list it on: a second
    // compaction lists the live files afresh. The first one expires, then the versions listing it leave the log.
    await step(9);
    await t.compact();
    await expireTable(storage, "expiry", "t", { maxAgeMs: 0, minSnapshots: 1 });
    let metadata: Record<string, unknown> = {};
    for (let i = 10; i < 10 + VERSIONS + 1; i++) metadata = await step(i);
    // No retained version names the first copies any more; the later appends' are live.
    const left = await copies();
    expect(left.filter((n) => first.includes(n))).toEqual([]);
    expect(left.length).toBeGreaterThan(0);
    await expectOnlyReferencedFiles(root, location, folder);
    await expectEverySnapshot(`${location}/data/expiry/t`, metadata, t, await t.history());
  }, 60_000);

  it("a rewrite after a torn version deletes what only the versions before it named; SIGKILL midway leaves valid metadata and the next export finishes", async () => {
    const { root, location, tableUrl, t, step } = await expiredTableNoExpiry();
    const folder = join(root, "data/expiry/t/metadata");
    const local = (uri: string) => join(root, uri.slice(location.length + 1));
    const jsons = async () => (await readdir(folder)).filter((n) => n.endsWith(".metadata.json")).sort();
    // Power loss tore the newest snapshot's own manifest: the next export describes every snapshot afresh.
    const newest = JSON.parse(await readFile(join(folder, "v10.metadata.json"), "utf8"));
    const [list] = readWithSpec("manifest_file", MANIFEST_FILE, [
      local(newest.snapshots.at(-1)["manifest-list"]),
    ]);
    const torn = local(list!.records[0]!.manifest_path as string);
    await truncate(torn, Math.floor((await stat(torn)).size / 2));
    const before = (await readdir(folder)).length;
    const killed = await exited(startTsx(EXPIRY_CHILD, [root, location, "10", String(VERSIONS)]));
    expect(killed.signal, killed.stderr).toBe("SIGKILL");
    // Killed midway: the rewrite (v11) is whole and readable, the versions before it are still on disk.
    expect(await jsons()).toContain("v11.metadata.json");
    expect((await jsons()).length).toBeGreaterThan(1);
    const v11 = JSON.parse(await readFile(join(folder, "v11.metadata.json"), "utf8"));
    await expectEverySnapshot(tableUrl, v11, t, await t.history());
    // The next export (another process) finishes: only what the retained versions name is left.
    const metadata = await step(11, nodeStorage({ root, fsync: false }));
    expect(await jsons()).toEqual(["v11.metadata.json", "v12.metadata.json"]);
    expect(await expectOnlyReferencedFiles(root, location, folder)).toBeLessThan(before);
    await expectEverySnapshot(tableUrl, metadata, t, await t.history());
  }, 60_000);
});

describe("inlining and Iceberg", () => {
  it("a table declared with iceberg writes a data file per append unless inlining is asked for", async () => {
    expect(ava.table({ schema }).inline).toMatchObject({ maxRows: 10 });
    expect(ava.table({ schema, iceberg: true }).inline).toMatchObject({ maxRows: 0 });
    expect(ava.table({ schema, iceberg: { background: false } }).inline).toMatchObject({ maxRows: 0 });
    expect(ava.table({ schema, iceberg: true, inline: true }).inline).toMatchObject({ maxRows: 10 });
    const { root } = await freshRoot();
    const Lake = ava.defineNamespace({ name: "lake", tables: { t: ava.table({ schema, iceberg: true }) } });
    const ns = await Lake.open({ storage: nodeStorage({ root, fsync: false }) });
    await ns.push();
    const t = ns.t as unknown as ava.Table;
    await t.append(rows(0, 2));
    expect((await t.currentSnapshot())!.addedFiles.map((f) => f.inline === undefined)).toEqual([true]);
  });
});
