// The avsc peer in Chromium. avsc's BlockEncoder/BlockDecoder need Node's streams; its browser entry for
// types alone needs only `buffer` and `util` (aliased to their npm packages by bench/browser-page.ts) and a
// `process` for util. So the peer here is avsc's own record codec — Type.toBuffer / Type.fromBuffer with
// BigInt longs, one record at a time — the generic path a browser app would otherwise take.
import { Buffer } from "buffer";
import { bigintLongHooks } from "../avsc-long.js";

type AvscType = { toBuffer(v: unknown): Uint8Array; fromBuffer(b: Uint8Array): { values: unknown[] } };

export async function avscStreamType(schema: unknown): Promise<AvscType> {
  (globalThis as { process?: unknown }).process ??= { env: {} };
  const avsc = (await import("avsc/etc/browser/avsc-types.js")) as unknown as {
    Type: { forSchema(s: unknown, o: unknown): AvscType };
    types: { LongType: { __with(h: unknown): unknown } };
  };
  const longType = avsc.types.LongType.__with(bigintLongHooks(Buffer));
  return avsc.Type.forSchema(schema, { registry: { long: longType } });
}
