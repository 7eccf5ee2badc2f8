// The avsc peer in Chromium. avsc's browser entry is CommonJS written for browserify, which supplies Node's
// `buffer`, `util`, `events` and `stream` as npm shims and a `process`; bench/browser-page.ts aliases those
// modules to the same shims, and `process` is set here. avsc's BlockEncoder/BlockDecoder then run exactly
// the code they run in Node (bench/avsc-blocks.ts). Its record codec alone (Type.toBuffer/fromBuffer, no
// container and no streams) is measured too: the fastest way avsc has to handle these records.
import { Buffer } from "buffer";
import { AVRO_STREAM_SCHEMA } from "../../src/avro.js";
import { type Avsc, type AvscPeer, avscPeer } from "../avsc-blocks.js";
import { bigintLongHooks } from "../avsc-long.js";

type RecordCodec = { toBuffer(v: unknown): Uint8Array; fromBuffer(b: Uint8Array): { values: unknown[] } };

function browserifyProcess(): void {
  const g = globalThis as unknown as { process?: Record<string, unknown> };
  g.process ??= { env: {}, browser: true, version: "" };
  g.process.nextTick ??= (fn: (...args: unknown[]) => void, ...args: unknown[]) =>
    queueMicrotask(() => fn(...args));
}

export async function avscBrowser(): Promise<{ blocks: AvscPeer; recordCodec: RecordCodec }> {
  browserifyProcess();
  const avsc = (await import("avsc/etc/browser/avsc.js")) as unknown as Avsc;
  // avsc adds every named type it parses to the registry it is given: a fresh one per schema.
  const long = avsc.types.LongType.__with(bigintLongHooks(Buffer));
  const registry = () => ({ long });
  return {
    blocks: avscPeer(avsc, Buffer),
    recordCodec: avsc.Type.forSchema(AVRO_STREAM_SCHEMA, { registry: registry() }) as RecordCodec,
  };
}
