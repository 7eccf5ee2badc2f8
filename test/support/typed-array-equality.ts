// Every test file's setup: a fast path for `toEqual` / `toStrictEqual` on typed arrays. Vitest compares them
// element by element through its generic deep equality (~40 µs an element: a 70,000-point BigInt64Array took
// 2.8 s), which made the Avro and ingest suites spend most of their time in their own assertions. Two typed
// arrays of the same class and the same bytes are equal under every rule vitest applies (`Object.is` per
// element holds for identical bit patterns, NaN and -0 included). Anything else — other bytes (a different
// NaN payload is still equal), other classes — is left to vitest, which then also prints its usual diff.
import { expect } from "vitest";

function sameBytes(a: ArrayBufferView, b: ArrayBufferView): boolean {
  if (a.byteLength !== b.byteLength) return false;
  const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

expect.addEqualityTesters([
  (a: unknown, b: unknown) => {
    if (!ArrayBuffer.isView(a) || !ArrayBuffer.isView(b) || a instanceof DataView || b instanceof DataView)
      return undefined;
    if (a.constructor !== b.constructor) return undefined;
    return sameBytes(a, b) ? true : undefined;
  },
]);
