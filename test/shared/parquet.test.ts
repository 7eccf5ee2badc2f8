import * as A from "apache-arrow";
import { expect, it } from "vitest";
import { z } from "zod";
import * as ava from "../../src/index.js";
import { decodeParquet, encodeParquet } from "../../src/parquet/parquet.js";

it("round-trips every supported column type through Parquet", async () => {
  const t = ava.table({
    schema: z.object({
      s: z.string(),
      i: z.int(),
      f: z.number().nullable(),
      b: z.boolean(),
      e: z.enum(["x", "y"]),
      d: z.date(),
      l: z.array(z.number()),
      o: z.object({ a: z.string(), n: z.array(z.object({ q: z.bigint() })) }),
      j: ava.json(),
    }),
    inline: false, // a Parquet data file even for two rows
  });
  const ns = await ava.defineNamespace({ name: "pq", tables: { t } }).open({ storage: ava.memoryStorage() });
  await ns.push();
  const rows = [
    {
      s: "é🙂",
      i: -5,
      f: null,
      b: true,
      e: "y" as const,
      d: new Date(0),
      l: [1.5, -0, 5e-324],
      o: { a: "", n: [{ q: -(2n ** 63n) }] },
      j: { deep: [1, "2"] },
    },
    {
      s: "",
      i: 2 ** 53 - 1,
      f: 1e308,
      b: false,
      e: "x" as const,
      d: new Date(8.64e15),
      l: [],
      o: { a: "z", n: [] },
      j: "text",
    },
  ];
  const res = await ns.t.append(rows);
  const back = await ns.t.readModels();
  expect(back).toEqual(rows);
  // The file is plain Parquet: decoded outside the table layer it has the stored schema.
  const bytes = await ns.storage.files.read(res.snapshot.addedFiles[0]!.path);
  expect([...bytes.subarray(0, 4)]).toEqual([0x50, 0x41, 0x52, 0x31]); // "PAR1"
  const raw = await decodeParquet(bytes);
  expect(raw.schema.fields.map((f) => f.name)).toEqual(t.schema.stored.fields.map((f) => f.name));
});

it("refuses bytes that are not Parquet with DATA_CORRUPT", async () => {
  await expect(decodeParquet(new Uint8Array([1, 2, 3]), { path: "x.parquet" })).rejects.toMatchObject({
    code: "DATA_CORRUPT",
    message: expect.stringMatching(/x\.parquet/),
  });
});

it("encodes with every offered compression", async () => {
  const values = Float64Array.from({ length: 1000 }, (_, i) => i % 7);
  values.set([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0], 500);
  const table = A.tableFromArrays({ v: values });
  for (const compression of ["uncompressed", "snappy", "gzip", "brotli", "lz4_raw", "zstd"] as const) {
    const back = await decodeParquet(await encodeParquet(table, { compression }));
    expect(back.getChild("v")!.toArray()).toEqual(table.getChild("v")!.toArray());
  }
});

it("round-trips a table larger than one encoder slice, with nulls and batches cut at odd offsets", async () => {
  // 200,003 rows in batches of 70,001: the streaming path slices across batch boundaries at offsets that
  // are not multiples of 8, where validity bitmaps must be re-aligned.
  const n = 200_003;
  const ids = Int32Array.from({ length: n }, (_, i) => i);
  const names = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? null : `n${i % 1000}`));
  const whole = A.tableFromArrays({ id: ids, name: names });
  const batches: A.RecordBatch[] = [];
  for (let at = 0; at < n; at += 70_001) batches.push(...whole.slice(at, at + 70_001).batches);
  const table = new A.Table(whole.schema, batches);
  const back = await decodeParquet(await encodeParquet(table));
  expect(back.numRows).toBe(n);
  expect(Array.from(back.getChild("id")!.toArray() as Int32Array)).toEqual(Array.from(ids));
  expect(back.getChild("name")!.toArray()).toEqual(names);
});

it("writes a small table from its cached IPC stream into the same file apache-arrow's stream makes", async () => {
  // Field metadata (Parquet field ids, as Iceberg tables carry) and a nested column: the cached schema
  // message must carry them as apache-arrow's writer does. Twice: the second encode hits the caches.
  const item = new A.Field("item", new A.Int32(), true, new Map([["PARQUET:field_id", "3"]]));
  const schema = new A.Schema([
    new A.Field("s", new A.Utf8(), true, new Map([["PARQUET:field_id", "1"]])),
    new A.Field("l", new A.List(item), true, new Map([["PARQUET:field_id", "2"]])),
  ]);
  const table = (n: number) =>
    new A.Table(schema, [
      new A.RecordBatch(
        schema,
        A.makeData({
          type: new A.Struct(schema.fields),
          length: n,
          nullCount: 0,
          children: [
            A.vectorFromArray(
              Array.from({ length: n }, (_, i) => (i % 3 ? `s${i}` : null)),
              new A.Utf8(),
            ).data[0]!,
            A.vectorFromArray(
              Array.from({ length: n }, (_, i) => (i % 4 ? [i, -i] : null)),
              new A.List(item),
            ).data[0]!,
          ],
        }),
      ),
    ]);
  const pq = await (await import("../../src/parquet/parquet.js")).loadParquetWasm();
  for (const n of [10, 10, 4096, 4097]) {
    const t = table(n);
    const ours = await encodeParquet(t, { compression: "snappy" });
    const reference = pq.writeParquet(
      pq.Table.fromIPCStream(A.tableToIPC(t, "stream")),
      new pq.WriterPropertiesBuilder()
        .setCompression(pq.Compression.SNAPPY)
        .setCreatedBy("avalanche-web")
        .setDictionaryEnabled(false)
        .setColumnDictionaryEnabled("s", true)
        .build(),
    );
    expect(ours).toEqual(reference);
    const back = await decodeParquet(ours);
    expect(back.getChild("s")!.toArray()).toEqual(t.getChild("s")!.toArray());
    expect(back.schema.fields.map((f) => f.metadata.get("PARQUET:field_id"))).toEqual(["1", "2"]);
  }
});
