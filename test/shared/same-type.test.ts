// Coercion's sameType caches each type object's shape: it must still match equal types made apart and
// tell different ones apart, on the first call and on every later one.
import * as A from "apache-arrow";
import { describe, expect, it } from "vitest";
import { sameType } from "../../src/schema/cast.js";

describe("sameType (cached per type object)", () => {
  it("matches equal types made apart, and tells different ones apart, on every call", () => {
    for (let round = 0; round < 2; round++) {
      expect(sameType(new A.Int64(), new A.Int64())).toBe(true);
      expect(sameType(new A.Int64(), new A.Int32())).toBe(false);
      expect(sameType(new A.Uint64(), new A.Int64())).toBe(false);
      expect(sameType(new A.TimestampMicrosecond("UTC"), new A.TimestampMicrosecond("UTC"))).toBe(true);
      expect(sameType(new A.TimestampMicrosecond("UTC"), new A.TimestampMillisecond("UTC"))).toBe(false);
      expect(sameType(new A.TimestampMicrosecond("UTC"), new A.TimestampMicrosecond())).toBe(false);
      // Nested: child nullability is not compared, child types are.
      const list = (t: A.DataType, nullable: boolean) => new A.List(new A.Field("item", t, nullable));
      expect(sameType(list(new A.Int32(), true), list(new A.Int32(), false))).toBe(true);
      expect(sameType(list(new A.Int32(), true), list(new A.Int64(), true))).toBe(false);
      const t = new A.Float64();
      expect(sameType(t, t)).toBe(true);
    }
  });
});
