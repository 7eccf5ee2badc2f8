// Values as JSON can carry them, for answers read by scripts and HTTP clients: 64-bit integers exact (as
// numbers when they fit, else strings), times as ISO-8601, non-finite doubles as strings.

/** A JSON-safe copy: bigints as numbers when exact, else as strings; dates as ISO strings. */
export function jsonSafe(value: unknown): unknown {
  if (typeof value === "bigint")
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  if (Array.isArray(value)) return value.map(jsonSafe);
  if (ArrayBuffer.isView(value)) return Array.from(value as unknown as ArrayLike<unknown>, jsonSafe);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonSafe(v)]));
  return value;
}
