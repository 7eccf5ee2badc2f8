// avsc's documented way to read and write longs as BigInt, given the Buffer class at hand (Node's own, or
// the npm `buffer` package in the browser bench page).
interface BufferClass {
  alloc(n: number): { writeBigInt64LE(n: bigint): unknown };
}

export function bigintLongHooks(Buffer: BufferClass) {
  return {
    fromBuffer: (buf: { readBigInt64LE(): bigint }) => buf.readBigInt64LE(),
    toBuffer: (n: bigint) => {
      const buf = Buffer.alloc(8);
      buf.writeBigInt64LE(n);
      return buf;
    },
    fromJSON: BigInt,
    toJSON: Number,
    isValid: (n: unknown) => typeof n === "bigint",
    compare: (a: bigint, b: bigint) => (a === b ? 0 : a < b ? -1 : 1),
  };
}
