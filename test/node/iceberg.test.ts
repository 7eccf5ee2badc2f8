// Iceberg v2 metadata read by independent implementations: icebird (npm) reads our tables over HTTP — the
// data and every snapshot by time travel must be exactly our rows — and Apache Avro's Python reads the
// manifests and manifest lists with the spec's own schemas as reader schemas (field ids, required fields).
import { execFileSync } from "node:child_process";
import { createReadStream } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, stat } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as A from "apache-arrow";
import { icebergRead } from "icebird";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as ava from "../../src/index.js";
import { nodeStorage } from "../../src/node.js";
import { expireTable } from "../../src/table/expire.js";

const PYTHON = "/usr/bin/python3";

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
        if (req.method === "HEAD") return res.end();
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

/** The namespace, its table writing Iceberg metadata per commit with the served URL of the storage root. */
function lake(location: string) {
  return ava.defineNamespace({
    name: "lake",
    tables: { events: ava.table({ schema, iceberg: { location } }) },
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

function python(script: string, ...args: string[]): unknown {
  return JSON.parse(execFileSync(PYTHON, ["-c", script, ...args], { encoding: "utf8" }));
}

describe("Iceberg metadata written on every commit", () => {
  it("icebird reads exactly our rows at every snapshot (time travel by metadata version and by snapshot id)", async () => {
    const { root, location } = await freshRoot();
    const ns = await lake(location).open({ storage: nodeStorage({ root, fsync: false }) });
    await ns.push();
    const events = ns.events as unknown as ava.Table;
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
    for (const s of snapshots) {
      const read = await icebergRead({
        tableUrl,
        metadata: { ...latest, "current-snapshot-id": s.sequenceNumber },
      });
      expect(canonical(read)).toEqual(await ours(events, s.id));
    }
    expect(canonical(await icebergRead({ tableUrl }))).toEqual(canonical(await events.scan().toObjects()));
  });
});
