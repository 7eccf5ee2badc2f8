// What a value must be to be stored as JSON text: finite numbers, no bigints, no cycles, and not nested
// past a limit (JSON.stringify and zod recurse, so 100k levels would overflow the stack as a RangeError).
// Walked iteratively, so checking a hostile value cannot overflow the stack either.

/** How deeply a JSON value may nest (arrays and objects). */
export const MAX_JSON_DEPTH = 1000;

/** What keeps `value` from being stored as JSON, or undefined when nothing does. */
export function jsonValueProblem(value: unknown, { allowNonFinite = true } = {}): string | undefined {
  // Depth-first with an explicit stack; `exit` entries pop a container off the current path.
  const path = new Set<object>();
  const stack: { v: unknown; depth: number; exit?: object }[] = [{ v: value, depth: 0 }];
  while (stack.length > 0) {
    const { v, depth, exit } = stack.pop()!;
    if (exit) {
      path.delete(exit);
      continue;
    }
    if (typeof v === "bigint") return `it holds a bigint (${v}n), which JSON cannot hold`;
    if (typeof v === "number" && !allowNonFinite && !Number.isFinite(v))
      return `it holds ${v}, which JSON cannot hold (use null)`;
    if (typeof v !== "object" || v === null) continue;
    if (path.has(v)) return "it contains a cycle (an object that holds itself)";
    if (depth >= MAX_JSON_DEPTH) return `it nests deeper than ${MAX_JSON_DEPTH} levels`;
    path.add(v);
    stack.push({ v: undefined, depth, exit: v });
    const children = Array.isArray(v) ? v : Object.values(v as object);
    for (const c of children) stack.push({ v: c, depth: depth + 1 });
  }
  return undefined;
}
