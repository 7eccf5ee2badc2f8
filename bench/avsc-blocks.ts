// The avsc peer of the Avro bench, one code path in Node and in Chromium: avsc's own container-file
// streams — BlockEncoder / BlockDecoder — over the same records, longs read and written as BigInt by avsc's
// documented hooks. In Node `avsc` is the package's Node entry; in Chromium its browser entry, whose
// streams run on browserify's shims (bench/browser-page.ts), as they would in a browserify-built app.
import type { AvroStreamRecord } from "../src/avro.js";
import { AVRO_STREAM_SCHEMA } from "../src/avro.js";
import { concatBytes } from "../src/util/bytes.js";
import { bigintLongHooks } from "./avsc-long.js";

interface Emitter {
  on(event: string, listener: (arg: never) => void): unknown;
}
interface BlockEncoder extends Emitter {
  write(record: unknown): boolean;
  end(): void;
}
interface BlockDecoder extends Emitter {
  end(bytes: unknown): void;
}
type AvscType = unknown;

/** What the bench uses of avsc: the same surface in its Node and browser entries. */
export interface Avsc {
  Type: { forSchema(schema: unknown, options: unknown): AvscType };
  types: { LongType: { __with(hooks: unknown): unknown } };
  streams: {
    BlockEncoder: new (type: AvscType, options: { codec: string }) => BlockEncoder;
    BlockDecoder: new (options: { parseHook(schema: unknown): AvscType }) => BlockDecoder;
  };
}

interface BufferClass {
  alloc(n: number): { writeBigInt64LE(n: bigint): unknown };
  from(buffer: ArrayBufferLike, offset: number, length: number): unknown;
}

export interface AvscPeer {
  /** avsc's value for each record: timestamps as BigInts, values as `{ double: v }` unions. */
  records(records: AvroStreamRecord[]): unknown[];
  write(records: unknown[], codec: "null" | "deflate"): Promise<Uint8Array>;
  /** Decodes a whole file; gives the points read. */
  read(bytes: Uint8Array): Promise<number>;
}

export function avscPeer(avsc: Avsc, Buffer: BufferClass): AvscPeer {
  // avsc adds every named type it parses to the registry it is given: a fresh one per schema.
  const long = avsc.types.LongType.__with(bigintLongHooks(Buffer));
  const registry = () => ({ long });
  const type = avsc.Type.forSchema(AVRO_STREAM_SCHEMA, { registry: registry() });
  return {
    records: (records) =>
      records.map((r) => ({
        channel: r.channel,
        timestamps: Array.from(r.timestamps),
        values: Array.from(r.values.values as Float64Array, (v) => ({ double: v })),
        tags: r.tags,
      })),
    write(records, codec) {
      const encoder = new avsc.streams.BlockEncoder(type, { codec });
      const chunks: Uint8Array[] = [];
      encoder.on("data", (chunk: Uint8Array) => chunks.push(chunk));
      const done = new Promise<Uint8Array>((resolve, reject) => {
        encoder.on("end", () => resolve(concatBytes(chunks)));
        encoder.on("error", reject);
      });
      for (const r of records) encoder.write(r);
      encoder.end();
      return done;
    },
    read(bytes) {
      const decoder = new avsc.streams.BlockDecoder({
        parseHook: (schema) => avsc.Type.forSchema(schema, { registry: registry() }),
      });
      let points = 0;
      decoder.on("data", (r: { values: unknown[] }) => {
        points += r.values.length;
      });
      const done = new Promise<number>((resolve, reject) => {
        decoder.on("end", () => resolve(points));
        decoder.on("error", reject);
      });
      decoder.end(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      return done;
    },
  };
}
