// A three-step pipeline for reruns: load appends raw numbers; double streams them and appends each times
// the run's factor; sum streams those and appends their total. Steps are ordered, not fed by value, so
// that any of them can be rerun alone.
import type * as A from "apache-arrow";
import { z } from "zod";
import * as ava from "../../src/index.js";

export const Pipeline = ava.defineNamespace({
  name: "pipeline",
  tables: {
    raw: ava.table({ schema: z.object({ x: z.int() }) }),
    doubled: ava.table({ schema: z.object({ x: z.int() }) }),
    summed: ava.table({ schema: z.object({ total: z.int() }) }),
  },
});

const load = ava.step(
  async function load(inj: { raw: ava.Table }) {
    await inj.raw.append([{ x: 1 }, { x: 2 }, { x: 3 }]);
  },
  { inject: { raw: Pipeline.tables.raw } },
);
const double = ava.step(
  async function double(inj: { raw: A.Table; doubled: ava.Table; input: { factor?: number } | undefined }) {
    const factor = inj.input?.factor ?? 2;
    const xs = (inj.raw.getChild("x")!.toArray() as BigInt64Array | Int32Array).length;
    const rows = Array.from({ length: xs }, (_, i) => ({
      x: Number(inj.raw.getChild("x")!.get(i)) * factor,
    }));
    await inj.doubled.append(rows);
    return rows.length;
  },
  {
    inject: { raw: ava.stream(Pipeline.tables.raw), doubled: Pipeline.tables.doubled, input: ava.runInput() },
  },
);
const sum = ava.step(
  async function sum(inj: { doubled: A.Table; summed: ava.Table }) {
    let total = 0;
    for (let i = 0; i < inj.doubled.numRows; i++) total += Number(inj.doubled.getChild("x")!.get(i));
    await inj.summed.append([{ total }]);
    return total;
  },
  { inject: { doubled: ava.stream(Pipeline.tables.doubled), summed: Pipeline.tables.summed } },
);
export const pipeline = ava.workflow({ name: "pipeline" }, () => {
  const l = load();
  const d = double();
  const s = sum();
  l.before(d);
  d.before(s);
  return s;
});

/** The same steps, but sum takes double's value: sum cannot be rerun without double. */
const sumOf = ava.step(async function sum_of(n: number) {
  return n;
});
export const byValue = ava.workflow({ name: "by-value" }, () => {
  const l = load();
  const d = double();
  l.before(d);
  return sumOf(d);
});
