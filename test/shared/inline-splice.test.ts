// The flush's fast path: inlined payloads spliced into one IPC stream and written by parquet-wasm as they
// are, with stats merged from the appends' own. It must write what the general path (decode, conform,
// re-encode) writes, and decline — or report the damage — whenever a payload is not what it expects.
import * as A from "apache-arrow";
import { describe, expect, it } from "vitest";
import * as ava from "../../src/index.js";
import type { Storage } from "../../src/index.js";
import { decodeParquet } from "../../src/parquet/parquet.js";
import { withColumnSizes } from "../../src/iceberg/column-metrics.js";
import type { DataFile } from "../../src/storage/catalog/model.js";
import { schemaFromJson } from "../../src/schema/arrow-json.js";
import { storedSchema } from "../../src/schema/provenance.js";
import { compactTable } from "../../src/table/compact.js";
import { flushInlinedRun } from "../../src/table/inline-flush-run.js";
import { inlinePayload } from "../../src/table/inline-data.js";
import { ipcMessages, spliceStreams } from "../../src/table/inline-splice.js";
import { columnStats, mergedStats } from "../../src/table/stats.js";
import { ulid } from "../../src/util/ids.js";
import { expectAvaError, telemetry, telemetrySchema } from "./fixtures.js";

const anyLayout = () => true;

const Both = ava.defineNamespace({
  name: "sp",
  tables: {
    inlined: ava.table({ schema: telemetrySchema, inline: { flush: false } }),
    files: ava.table({ schema: telemetrySchema, inline: false }),
  },
});

/** Telemetry as an append stores it: plain strings (the fixture's `telemetry` makes a dictionary column). */
function plain(channel: string, from: number, count: number): A.Table {
  return new A.Table({
    channel: A.vectorFromArray(
      Array.from({ length: count }, () => channel),
      new A.Utf8(),
    ),
    ts: A.makeVector(BigInt64Array.from({ length: count }, (_, i) => BigInt(from + i))),
    value: A.makeVector(Float64Array.from({ length: count }, (_, i) => (from + i) * 0.5)),
  });
}

/** 3 rows of telemetry with a null value, so stats have nulls to count. */
function rowsWithNull(channel: string, from: number): A.Table {
  return new A.Table({
    channel: A.vectorFromArray([channel, channel, channel], new A.Utf8()),
    ts: A.makeVector(BigInt64Array.from([0, 1, 2], (i) => BigInt(from + i))),
    value: A.vectorFromArray([from, null, -from], new A.Float64()),
  });
}

async function liveFiles(storage: Storage, table: string): Promise<readonly DataFile[]> {
  return (await storage.catalog.current()).tables[`sp.${table}`]!.history.liveFiles;
}

const userColumns = (t: A.Table) =>
  t
    .select(["channel", "ts", "value"])
    .toArray()
    .map((r) => r.toJSON());

describe("inlined payloads spliced into one stream", () => {
  it("reads a stream's messages and joins streams of one schema; declines anything else", () => {
    const two = plain("a", 0, 3).concat(plain("b", 10, 2));
    const bytes = A.tableToIPC(two, "stream");
    const messages = ipcMessages(bytes)!;
    expect(messages.map((m) => m.type)).toEqual([1, 3, 3]); // schema, record batch, record batch
    expect(messages.map((m) => m.rows)).toEqual([0, 3, 2]);
    expect(ipcMessages(bytes.subarray(0, bytes.length - 1))).toBeUndefined(); // truncated
    expect(ipcMessages(bytes.subarray(8))).toBeUndefined(); // not at a message

    const payloads = [plain("a", 0, 3), plain("b", 10, 4)].map((t) => ({
      bytes: A.tableToIPC(t, "stream"),
      rows: t.numRows,
    }));
    const joined = A.tableFromIPC(spliceStreams(payloads, telemetrySchema, anyLayout)!);
    expect(joined.numRows).toBe(7);
    expect(userColumns(joined)).toEqual([
      ...userColumns(plain("a", 0, 3)),
      ...userColumns(plain("b", 10, 4)),
    ]);
    // A payload that holds other rows than the catalog says, or of another schema: decoded the slow way.
    expect(spliceStreams([{ ...payloads[0]!, rows: 2 }], telemetrySchema, anyLayout)).toBeUndefined();
    const other = A.tableToIPC(new A.Table({ x: A.makeVector(Int32Array.from([1])) }), "stream");
    expect(
      spliceStreams([payloads[0]!, { bytes: other, rows: 1 }], telemetrySchema, anyLayout),
    ).toBeUndefined();
    expect(spliceStreams(payloads, telemetrySchema, () => false)).toBeUndefined();
    const dictionary = { bytes: A.tableToIPC(telemetry("c", 0, 2), "stream"), rows: 2 }; // dictionary batches
    expect(spliceStreams([payloads[0]!, dictionary], telemetrySchema, anyLayout)).toBeUndefined();
  });

  it("a flush writes what decoding the rows would: same rows, order, schema and stats", async () => {
    const storage = ava.memoryStorage({ id: ulid() });
    const ns = await Both.open({ storage });
    await ns.push();
    for (let i = 0; i < 12; i++) {
      const rows = i % 3 === 0 ? rowsWithNull(`c${i}`, i * 10) : telemetry(`c${i % 4}`, i * 10, 1 + (i % 5));
      await ns.inlined.append(rows);
      await ns.files.append(rows);
    }
    const expected = userColumns(await ns.inlined.read());
    expect((await liveFiles(storage, "inlined")).every((f) => f.inline !== undefined)).toBe(true);
    // The flush takes the fast path for these (and the general one for the files).
    const entry = (await storage.catalog.current()).tables["sp.inlined"]!;
    const stored = storedSchema(schemaFromJson(entry.schema), entry.rowLineage);
    expect(await flushInlinedRun(entry, stored, entry.history.liveFiles)).toBeDefined();
    await compactTable(storage, "sp", "inlined", { flush: true }); // spliced
    await compactTable(storage, "sp", "files", { minFiles: 2 }); // decoded and re-encoded
    const [spliced] = await liveFiles(storage, "inlined");
    const [general] = await liveFiles(storage, "files");
    expect((await liveFiles(storage, "inlined")).length).toBe(1);
    const splicedBytes = await storage.files.read(spliced!.path);
    const a = await decodeParquet(splicedBytes);
    const b = await decodeParquet(await storage.files.read(general!.path));
    expect(userColumns(a)).toEqual(expected);
    expect(userColumns(b)).toEqual(expected);
    // Same Arrow schema (field ids and provenance columns included) and the stats decoding would give.
    expect(a.schema.fields.map((f) => [f.name, String(f.type), [...f.metadata]])).toEqual(
      b.schema.fields.map((f) => [f.name, String(f.type), [...f.metadata]]),
    );
    // (with each column's chunk bytes, which compaction keeps for Iceberg manifests' column_sizes)
    expect(spliced!.stats).toEqual(withColumnSizes(columnStats(a), splicedBytes));
    expect(spliced!.rowCount).toBe(a.numRows);
    expect(userColumns(await ns.inlined.read())).toEqual(expected);
  });

  it("merges stats as computing them on all the rows would, keeping truncated bounds truncated", () => {
    const file = (rowCount: number, stats: DataFile["stats"]): DataFile => ({
      path: "x",
      rowCount,
      sizeBytes: 1,
      stats,
    });
    const merged = mergedStats([
      file(2, {
        s: { nullCount: 0, min: "b", max: "d" },
        n: { nullCount: 2 },
        i: { nullCount: 0, min: { bigint: "5" }, max: { bigint: "9" } },
      }),
      file(3, {
        s: { nullCount: 1, min: "a" },
        n: { nullCount: 0, min: 1.5, max: { float: "Infinity" } },
        i: { nullCount: 0, min: { bigint: "-1" }, max: { bigint: "2" } },
      }),
    ]);
    expect(merged).toEqual({
      s: { nullCount: 1, min: "a" }, // one file's max was dropped (a long string): none for the whole
      n: { nullCount: 2, min: 1.5, max: { float: "Infinity" } },
      i: { nullCount: 0, min: { bigint: "-1" }, max: { bigint: "9" } },
    });
    // A column some file has no usable stats for (values, but no bound) gets none.
    expect(
      mergedStats([file(1, { s: { nullCount: 0 } }), file(1, { s: { nullCount: 0, min: "a", max: "a" } })]),
    ).toEqual({});
  });

  it("a damaged payload fails the flush with CATALOG_CORRUPT and changes nothing", async () => {
    for (const damage of ["crc", "rows"] as const) {
      const storage = ava.memoryStorage({ id: ulid() });
      const ns = await Both.open({ storage });
      await ns.push();
      await ns.inlined.append(telemetry("a", 0, 3));
      const rows = telemetry("b", 10, 3);
      const payload = inlinePayload(rows);
      const bad: DataFile = {
        path: `data/sp/inlined/${ulid()}.inline`,
        rowCount: damage === "rows" ? 2 : 3,
        sizeBytes: payload.sizeBytes,
        stats: columnStats(rows),
        inline: payload.inline,
        inlineCrc: damage === "crc" ? (payload.inlineCrc + 1) >>> 0 : payload.inlineCrc,
      };
      await storage.catalog.commit([
        {
          op: "commitSnapshot",
          namespace: "sp",
          table: "inlined",
          snapshot: { id: ulid(), operation: "append", timestampMs: Date.now(), addedFiles: [bad] },
        },
      ]);
      const before = await liveFiles(storage, "inlined");
      await expectAvaError(
        compactTable(storage, "sp", "inlined", { flush: true }),
        "CATALOG_CORRUPT",
        damage === "crc" ? /fails its CRC-32/ : /holds 3 rows; the catalog recorded 2/,
      );
      expect(await liveFiles(storage, "inlined")).toEqual(before);
      expect(await storage.files.list("data/")).toEqual([]); // no flushed file left behind
    }
  });
});
