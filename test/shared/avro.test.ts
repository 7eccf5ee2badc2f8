// Avro stream files: round trips of every value kind and codec, schema resolution, and bad files — each an
// AvaError naming the problem, never a hang, a huge allocation or a stray exception. Runs in Node and Chromium.
import { describe, expect, it } from "vitest";
import {
  AVRO_STREAM_SCHEMA,
  type AvroStreamRecord,
  CODECS,
  createWriter,
  encodeAvroStream,
  memorySink,
  openAvroStream,
  readAvroStream,
  resolveStreamSchema,
} from "../../src/avro.js";
import { encodeBlock, encodeHeader } from "../../src/avro/container.js";
import { concatBytes } from "../../src/util/bytes.js";
import { RECORDS } from "./avro-records.js";
import { expectAvaError } from "./fixtures.js";
import { recordBytes, zstdFile, zstdFrame } from "./zstd-frames.js";

describe("Avro stream files", () => {
  it.each(CODECS)(
    "round-trips every value kind exactly with the %s codec, over many blocks",
    async (codec) => {
      const many = Array.from({ length: 40 }, (_, i) => RECORDS[i % RECORDS.length]!);
      const bytes = await encodeAvroStream(many, { codec, recordsPerBlock: 3 });
      const file = await openAvroStream(bytes);
      expect(file.schema.variant).toBe("seed");
      expect(file.codec).toBe(codec);
      expect(new TextDecoder().decode(file.metadata.get("avro.schema"))).toBe(
        JSON.stringify(AVRO_STREAM_SCHEMA),
      );
      const back = [];
      for await (const r of file.records()) back.push(r);
      expect(back).toEqual(many);
    },
  );

  it("streams from a ReadableStream of tiny chunks and from a Blob", async () => {
    const bytes = await encodeAvroStream(RECORDS, { codec: "deflate", recordsPerBlock: 2 });
    const tiny = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 7) controller.enqueue(bytes.slice(i, i + 7));
        controller.close();
      },
    });
    expect(await readAvroStream(tiny)).toEqual(RECORDS);
    expect(await readAvroStream(new Blob([bytes as Uint8Array<ArrayBuffer>]))).toEqual(RECORDS);
  });

  it("writes a valid header-only file for no records", async () => {
    const bytes = await encodeAvroStream([]);
    expect(await readAvroStream(bytes)).toEqual([]);
  });

  it("resolves the seed order, the Rust writer's order and the legacy schema, and refuses others", async () => {
    const schema = JSON.parse(JSON.stringify(AVRO_STREAM_SCHEMA));
    expect(resolveStreamSchema(JSON.stringify(schema)).variant).toBe("seed");
    const union = schema.fields[2].type.items;
    [union[1], union[2]] = [union[2], union[1]];
    expect(resolveStreamSchema(JSON.stringify(schema))).toEqual({
      variant: "rust",
      branches: ["double", "string", "long", "doubleArray", "stringArray", "json"],
    });
    schema.fields[2].type.items = ["double", "string"];
    expect(resolveStreamSchema(JSON.stringify(schema)).variant).toBe("legacy");
    schema.fields[2].type.items = ["string", "double"];
    await expectAvaError(
      () => resolveStreamSchema(JSON.stringify(schema)),
      "AVRO_SCHEMA",
      /none of the known orders/,
    );
    await expectAvaError(
      () => resolveStreamSchema('{"type":"record","name":"Other","fields":[]}'),
      "AVRO_SCHEMA",
      /AvroStream/,
    );
    await expectAvaError(() => resolveStreamSchema('"string"'), "AVRO_SCHEMA");
    await expectAvaError(() => resolveStreamSchema("{not json"), "AVRO_SCHEMA", /not JSON/);
  });

  it("reads values by the file's own union order (legacy [double, string] writer)", async () => {
    const legacy = JSON.parse(JSON.stringify(AVRO_STREAM_SCHEMA));
    legacy.fields[2].type.items = ["double", "string"];
    const sync = new Uint8Array(16).fill(7);
    // channel "c", timestamps [1, 2], values [string "s" (branch 1), double 0.5 (branch 0)], no tags
    const data = Uint8Array.of(
      2,
      0x63,
      4,
      2,
      4,
      0,
      4,
      2,
      2,
      0x73,
      0,
      ...new Uint8Array(new Float64Array([0.5]).buffer),
      0,
      0,
    );
    const bytes = concat(
      encodeHeader({ "avro.schema": JSON.stringify(legacy) }, sync),
      encodeBlock(1, data, sync),
    );
    const [rec] = await readAvroStream(bytes);
    expect(rec!.values).toEqual({
      kind: "mixed",
      values: [
        { kind: "string", value: "s" },
        { kind: "double", value: 0.5 },
      ],
    });
  });
});

const concat = (...parts: Uint8Array[]) => concatBytes(parts);

describe("bad Avro files are AvaErrors naming the problem", () => {
  const sync = new Uint8Array(16).fill(3);
  const header = () =>
    encodeHeader({ "avro.schema": JSON.stringify(AVRO_STREAM_SCHEMA), "avro.codec": "null" }, sync);

  it("wrong magic", async () => {
    const bytes = await encodeAvroStream(RECORDS);
    bytes[1] = 0x78;
    await expectAvaError(readAvroStream(bytes), "AVRO_CORRUPT", /magic/, /byte 0/);
  });

  it("every prefix of a small file: truncated, or (cut at a block boundary) a shorter valid file", async () => {
    const records = RECORDS.slice(0, 4);
    const bytes = await encodeAvroStream(records, { recordsPerBlock: 2 });
    const readable: number[] = [];
    for (let n = 0; n < bytes.length; n++) {
      let got: AvroStreamRecord[] | undefined;
      try {
        got = await readAvroStream(bytes.subarray(0, n));
      } catch {
        await expectAvaError(readAvroStream(bytes.subarray(0, n)), "AVRO_CORRUPT", /truncated|incomplete/);
        continue;
      }
      // Avro has no end marker: a cut right after a block's sync marker is a valid file with fewer blocks.
      expect(got).toEqual(records.slice(0, got.length));
      readable.push(got.length);
    }
    expect(readable).toEqual([0, 2]); // after the header, after the first block
  });

  it("a flipped sync marker names its offset", async () => {
    const bytes = await encodeAvroStream(RECORDS, { recordsPerBlock: 100 });
    bytes[bytes.length - 3]! ^= 0xff;
    await expectAvaError(readAvroStream(bytes), "AVRO_CORRUPT", /sync marker mismatch at byte \d+/);
  });

  it("blocks claiming 2^62 records or bytes, and negative lengths, are refused before any allocation", async () => {
    /** A block header claiming `count` records of `size` bytes, followed by `dataLength` bytes and a valid sync. */
    const block = (count: bigint, size: bigint, dataLength = 0) => {
      const varints: number[] = [];
      for (const v of [count, size]) {
        let z = BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
        while (z > 0x7fn) {
          varints.push(Number(z & 0x7fn) | 0x80);
          z >>= 7n;
        }
        varints.push(Number(z));
      }
      return concat(header(), Uint8Array.from(varints), new Uint8Array(dataLength), sync);
    };
    const huge = (count: bigint, size: bigint) => block(count, size, Number(size < 100n ? size : 0n));
    await expectAvaError(readAvroStream(huge(2n ** 62n, 10n)), "AVRO_CORRUPT", /out of range|records/);
    await expectAvaError(readAvroStream(huge(1n, 2n ** 62n)), "AVRO_CORRUPT", /out of range|limit/);
    await expectAvaError(readAvroStream(huge(1_000_000n, 8n)), "AVRO_CORRUPT", /records/);
    await expectAvaError(readAvroStream(huge(-1n, 8n)), "AVRO_CORRUPT", /negative/);
    // A record whose timestamps array claims 2^40 items in a 12-byte block.
    const claim = Uint8Array.of(2, 0x63, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x04, 0, 0, 0, 0, 0);
    await expectAvaError(
      readAvroStream(concat(header(), encodeBlock(1, claim, sync))),
      "AVRO_CORRUPT",
      /claims \d+ items/,
    );
  });

  it("timestamps and values of unequal length", async () => {
    const rec: AvroStreamRecord = {
      channel: "c",
      timestamps: BigInt64Array.of(1n, 2n),
      values: { kind: "double", values: Float64Array.of(1) },
      tags: {},
    };
    await expectAvaError(
      readAvroStream(await encodeAvroStream([rec])),
      "AVRO_CORRUPT",
      /"c" has 2 timestamps but 1 values/,
    );
  });

  it("a snappy block whose CRC does not match", async () => {
    const bytes = await encodeAvroStream(RECORDS, { codec: "snappy", recordsPerBlock: 100 });
    bytes[bytes.length - 17]! ^= 0x01; // the last byte of the block's CRC, just before the sync marker
    await expectAvaError(readAvroStream(bytes), "AVRO_CORRUPT", /CRC mismatch/, /block at byte \d+/);
  });

  it.each(["deflate", "snappy"] as const)(
    "a %s decompression bomb stops at the block limit",
    async (codec) => {
      const zeros = {
        channel: "z",
        timestamps: new BigInt64Array(200_000),
        values: { kind: "double" as const, values: new Float64Array(200_000) },
        tags: {},
      };
      const bytes = await encodeAvroStream([zeros], { codec });
      expect(bytes.length).toBeLessThan(200_000); // ~2.6 MB of zeros, squeezed
      await expectAvaError(
        readAvroStream(bytes, { maxBlockBytes: 1_000_000 }),
        "AVRO_CORRUPT",
        /(past|over the) 1000000/,
      );
    },
  );

  it("a schema that is not an Avro stream, an unknown codec, random garbage", async () => {
    const other = encodeHeader({ "avro.schema": '{"type":"record","name":"Other","fields":[]}' }, sync);
    await expectAvaError(readAvroStream(other), "AVRO_SCHEMA", /AvroStream/);
    const zstd = encodeHeader(
      { "avro.schema": JSON.stringify(AVRO_STREAM_SCHEMA), "avro.codec": "lzo" },
      sync,
    );
    await expectAvaError(readAvroStream(zstd), "AVRO_CORRUPT", /codec "lzo"/);
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 50; i++) {
      const garbage = Uint8Array.from({ length: 1 + Math.floor(random() * 300) }, () =>
        Math.floor(random() * 256),
      );
      if (i % 2) garbage.set([0x4f, 0x62, 0x6a, 0x01]);
      await expect(readAvroStream(garbage)).rejects.toMatchObject({ name: "AvaError" });
    }
  });
});

describe("the long hot loops", () => {
  it("write and read every kind of 64-bit timestamp exactly as the one-at-a-time codec does", async () => {
    const { ByteReader, ByteWriter } = await import("../../src/avro/binary.js");
    const edges = [
      0n,
      1n,
      -1n,
      63n,
      64n,
      -64n,
      -65n,
      2n ** 31n,
      -(2n ** 31n),
      2n ** 32n,
      2n ** 35n - 1n,
      2n ** 35n,
    ];
    edges.push(
      2n ** 62n,
      -(2n ** 62n),
      2n ** 63n - 1n,
      -(2n ** 63n),
      1_757_500_000_000_000_000n,
      -1_757_500_000_000_000_000n,
    );
    let seed = 5n;
    for (let i = 0; i < 500; i++) {
      seed = (seed * 6364136223846793005n + 1442695040888963407n) & (2n ** 64n - 1n);
      edges.push(BigInt.asIntN(64, seed >> BigInt(i % 60)));
    }
    const values = BigInt64Array.from(edges);
    const fast = new ByteWriter();
    fast.longsFromWords(new Int32Array(values.buffer), values.length);
    const slow = new ByteWriter();
    for (const v of values) slow.long(v);
    expect(Array.from(fast.view())).toEqual(Array.from(slow.view()));

    const back = new BigInt64Array(values.length);
    const reader = new ByteReader(fast.view().slice());
    reader.longsInto(new Int32Array(back.buffer), 0, values.length);
    expect(Array.from(back)).toEqual(Array.from(values));
    expect(reader.remaining).toBe(0);
  });
});

describe("decoded records", () => {
  it("share arena buffers without overlapping: each record's arrays are its own range", async () => {
    const { encodeAvroStream, readAvroStream } = await import("../../src/avro.js");
    const records = Array.from({ length: 200 }, (_, r) => ({
      channel: `c${r}`,
      timestamps: BigInt64Array.from({ length: 500 }, (_, i) => BigInt(r * 1000 + i)),
      values: { kind: "double" as const, values: Float64Array.from({ length: 500 }, (_, i) => r + i / 1000) },
      tags: {},
    }));
    const back = await readAvroStream(await encodeAvroStream(records, { codec: "null" }));
    for (const rec of back) {
      rec.timestamps.fill(-1n);
      (rec.values.values as Float64Array).fill(-1);
    }
    const again = await readAvroStream(await encodeAvroStream(records, { codec: "null" }));
    expect(again.map((r) => r.timestamps[499])).toEqual(records.map((r) => r.timestamps[499]));
    // filling each record's arrays touched only its own points
    expect(back.every((r) => r.timestamps.length === 500 && r.timestamps.every((t) => t === -1n))).toBe(true);
    const fresh = await readAvroStream(await encodeAvroStream(records.slice(0, 2), { codec: "null" }));
    fresh[0]!.timestamps.fill(7n);
    expect(Array.from(fresh[1]!.timestamps.subarray(0, 3))).toEqual([1000n, 1001n, 1002n]);
  });
});

describe("zstandard files (read, not written)", () => {
  it("reads raw and RLE blocks exactly, over several frames and Avro blocks", async () => {
    const data = recordBytes(RECORDS);
    const half = data.length >> 1;
    const file = zstdFile([
      // RECORDS split over two frames of one Avro block
      {
        count: RECORDS.length,
        frame: concatBytes([
          zstdFrame([{ raw: data.subarray(0, half) }]),
          zstdFrame([{ raw: data.subarray(half) }]),
        ]),
      },
      // 40,000 empty records (four zero bytes each: no channel text, no timestamps, values or tags) as RLE
      {
        count: 40_000,
        frame: zstdFrame([
          { rle: 0, size: 1 << 17 },
          { rle: 0, size: 160_000 - (1 << 17) },
        ]),
      },
    ]);
    const file0 = await openAvroStream(file);
    expect(file0.codec).toBe("zstandard");
    const back = await readAvroStream(file);
    expect(back.slice(0, RECORDS.length)).toEqual(RECORDS);
    expect(back).toHaveLength(RECORDS.length + 40_000);
    expect(back.at(-1)).toEqual({
      channel: "",
      timestamps: new BigInt64Array(0),
      values: { kind: "double", values: new Float64Array(0) },
      tags: {},
    });
  });

  it("refuses a window or content past the block limit before allocating it", async () => {
    const huge = zstdFile([{ count: 1, frame: zstdFrame([{ rle: 0, size: 4 }], 31) }]); // a 2 GiB window
    await expectAvaError(
      readAvroStream(huge, { maxBlockBytes: 1 << 20 }),
      "AVRO_CORRUPT",
      /declares 2147483648 bytes, past the block limit 1048576/,
    );
  });

  it("a zstandard decompression bomb stops at the block limit", async () => {
    // 40 RLE blocks of 128 KiB: 5 MiB from a few hundred bytes
    const bomb = zstdFile([
      { count: 1, frame: zstdFrame(Array.from({ length: 40 }, () => ({ rle: 0, size: 1 << 17 }))) },
    ]);
    expect(bomb.length).toBeLessThan(1000);
    await expectAvaError(readAvroStream(bomb, { maxBlockBytes: 1_000_000 }), "AVRO_CORRUPT", /past 1000000/);
  });

  it("corrupt and truncated zstandard data name the block", async () => {
    const garbage = Uint8Array.from({ length: 64 }, (_, i) => (i * 37 + 11) & 0xff);
    // a compressed block (type 2) of garbage
    const header = 1 | (2 << 1) | (garbage.length << 3);
    const frame = concatBytes([
      zstdFrame([]).subarray(0, 6),
      Uint8Array.of(header & 0xff, header >> 8, 0),
      garbage,
    ]);
    await expectAvaError(
      readAvroStream(zstdFile([{ count: 1, frame }])),
      "AVRO_CORRUPT",
      /block at byte \d+: the zstandard data/,
    );
    const cut = zstdFrame([{ raw: recordBytes(RECORDS) }]);
    await expectAvaError(
      readAvroStream(zstdFile([{ count: RECORDS.length, frame: cut.subarray(0, cut.length - 5) }])),
      "AVRO_CORRUPT",
      /ends inside a block/,
    );
    await expectAvaError(
      readAvroStream(zstdFile([{ count: 1, frame: garbage }])),
      "AVRO_CORRUPT",
      /has no zstandard frame at byte 0/,
    );
  });

  it("is refused as a writer codec, before anything is written", async () => {
    await expectAvaError(
      encodeAvroStream(RECORDS, { codec: "zstandard" as never }),
      "INVALID_ARGUMENT",
      /zstandard files are read, not written/,
    );
    const sink = memorySink();
    expect(() => createWriter(sink, { codec: "lzo" as never })).toThrow(
      /codec "lzo" is not supported for writing/,
    );
    await expectAvaError(() => createWriter(sink, { snappy: "best" as never }), "INVALID_ARGUMENT", /"best"/);
    await expectAvaError(
      encodeAvroStream(RECORDS, { codec: "snappy", snappy: "max" as never }),
      "INVALID_ARGUMENT",
      /fast or small/,
    );
    expect(sink.bytes()).toHaveLength(0);
  });
});

describe("records({ reuse: true })", () => {
  it("decodes every record into the same buffers; copying as you go gives the records exactly", async () => {
    // Sizes around the arena's 65,536-value chunk, one record larger than it, and every value kind.
    const sizes = [1, 1000, 65_535, 65_537, 3, 70_000, 2];
    const doubles = sizes.map((n, r) => ({
      channel: `c${r}`,
      timestamps: BigInt64Array.from({ length: n }, (_, i) => BigInt(r) * 1_000_000_000_000n + BigInt(i)),
      values: { kind: "double" as const, values: Float64Array.from({ length: n }, (_, i) => r + i / 8) },
      tags: { r: String(r) },
    }));
    const records = [...doubles, ...RECORDS, ...doubles.slice(0, 2)];
    for (const codec of CODECS) {
      const bytes = await encodeAvroStream(records, { codec, recordsPerBlock: 2 });
      const copies: AvroStreamRecord[] = [];
      const buffers = new Set<ArrayBufferLike>();
      for await (const r of (await openAvroStream(bytes)).records({ reuse: true })) {
        if (r.timestamps.length > 0) buffers.add(r.timestamps.buffer);
        copies.push(structuredClone(r));
      }
      expect(copies).toEqual(records);
      expect(copies).toEqual(await readAvroStream(bytes));
      // the first 65,536-value chunk, grown twice (65,537 and 70,000 points), for all 20 records
      expect(buffers.size).toBe(3);
    }
  }, 120_000); // a few seconds; ~50 s before typed arrays were compared by their bytes (test/support)

  it("overwrites a record's arrays with the next record's", async () => {
    const bytes = await encodeAvroStream(RECORDS.slice(0, 2), { codec: "null" });
    const kept: AvroStreamRecord[] = [];
    for await (const r of (await openAvroStream(bytes)).records({ reuse: true })) kept.push(r);
    // the first record's view now shows the start of the second record's timestamps
    expect(kept[0]!.timestamps[0]).toBe(RECORDS[1]!.timestamps[0]);
  });
});

describe("encodeAvroStream inputs", () => {
  it("gives the same records from an array (sized up front) and from a generator (grown)", async () => {
    const { encodeAvroStream, readAvroStream } = await import("../../src/avro.js");
    const make = (r: number) => ({
      channel: `c${r % 3}`,
      timestamps: BigInt64Array.from({ length: 100 + r }, (_, i) => BigInt(r * 1000 + i)),
      values: { kind: "double" as const, values: Float64Array.from({ length: 100 + r }, (_, i) => i / 7) },
      tags: { r: String(r) },
    });
    const array = Array.from({ length: 300 }, (_, r) => make(r));
    function* generate() {
      for (let r = 0; r < 300; r++) yield make(r);
    }
    for (const codec of ["null", "deflate", "snappy"] as const) {
      const a = await readAvroStream(await encodeAvroStream(array, { codec, recordsPerBlock: 7 }));
      const g = await readAvroStream(await encodeAvroStream(generate(), { codec, recordsPerBlock: 7 }));
      expect(g).toEqual(a);
      expect(a.map((r) => r.tags.r)).toEqual(array.map((r) => r.tags.r));
      expect(Array.from(a[299]!.timestamps.subarray(-2))).toEqual([299_397n, 299_398n]);
    }
  });
});
