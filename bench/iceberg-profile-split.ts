// Splits a CPU profile (bench/iceberg-profile.ts) by function: self time of the top functions, and the
// inclusive time of every function whose name or file matches one of argv[3..] (default: the Iceberg
// modules' entry points), as a share of the busy (non-idle) samples.
// Usage: node --import tsx bench/iceberg-profile-split.ts PROFILE.cpuprofile [pattern ...]
import { readFileSync } from "node:fs";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const profile = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
};
const patterns = process.argv.slice(3);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const label = (n: Node) =>
  `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.replace(/^.*\/(src|bench|node_modules)\//, "$1/")}:${n.callFrame.lineNumber + 1}`;
const self = new Map<string, number>();
const inclusive = new Map<string, number>();
let busy = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const dt = Math.min(profile.timeDeltas[i] ?? 0, 400); // capped: a long gap is the thread descheduled, not work
  const leaf = byId.get(profile.samples[i]!)!;
  if (leaf.callFrame.functionName === "(idle)" || leaf.callFrame.functionName === "(program)") continue;
  busy += dt;
  self.set(label(leaf), (self.get(label(leaf)) ?? 0) + dt);
  const seen = new Set<string>();
  for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
    const l = label(byId.get(id)!);
    if (seen.has(l)) continue;
    seen.add(l);
    inclusive.set(l, (inclusive.get(l) ?? 0) + dt);
  }
}
const pct = (us: number) =>
  `${((100 * us) / busy).toFixed(1).padStart(5)}% ${(us / 1000).toFixed(0).padStart(6)} ms`;
console.log(`busy ${(busy / 1000).toFixed(0)} ms`);
console.log("--- self");
for (const [l, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(pct(us), l);
console.log("--- inclusive");
const wanted = patterns.length > 0 ? patterns : ["src/iceberg/", "src/parquet/", "src/table/"];
for (const [l, us] of [...inclusive]
  .filter(([l]) => wanted.some((p) => l.includes(p)))
  .sort((a, b) => b[1] - a[1])
  .slice(0, 60))
  console.log(pct(us), l);
