// The setup's fast typed-array equality (test/support/typed-array-equality.ts) must agree with vitest's own
// rules: it may only say "equal" sooner, never where vitest would not.
import { describe, expect, it } from "vitest";

describe("typed-array equality in tests", () => {
  it("equal bytes of the same class are equal, views at any offset included", () => {
    const big = BigInt64Array.from({ length: 100_000 }, (_, i) => BigInt(i) * 3n);
    expect(big.slice()).toEqual(big);
    expect(big.slice()).toStrictEqual(big);
    const backing = new Float64Array(10).map((_, i) => i / 3);
    expect(backing.subarray(2, 6)).toEqual(Float64Array.of(2 / 3, 1, 4 / 3, 5 / 3));
  });

  it("differs where vitest differs: one element, the length, the class, 0 and -0", () => {
    const a = Float64Array.of(1, 2, 3);
    expect(Float64Array.of(1, 2, 4)).not.toEqual(a);
    expect(Float64Array.of(1, 2)).not.toEqual(a);
    expect(Float32Array.of(1, 2, 3)).not.toEqual(a);
    expect(Uint32Array.of(7)).not.toEqual(Int32Array.of(7)); // same bytes, another class
    expect(Float64Array.of(-0)).not.toEqual(Float64Array.of(0));
  });

  it("leaves NaNs of different bit patterns to vitest, which calls them equal", () => {
    const quiet = new Float64Array(1);
    new DataView(quiet.buffer).setBigUint64(0, 0x7ff8000000000001n, true);
    expect(quiet).toEqual(Float64Array.of(Number.NaN));
  });
});
