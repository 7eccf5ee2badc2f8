// The table both Iceberg benches commit to (bench/iceberg-side.ts, bench/iceberg-profile.ts): 10-row
// appends, a data file each on both sides (Iceberg tables do not inline), so the difference is the metadata.
// "floor" is a plain table whose side also writes two files per commit (bench/iceberg-side.ts).
import { mkdtemp } from "node:fs/promises";
import { join } from "node:path";
import * as ava from "../src/index.js";
import { nodeStorage } from "../src/node.js";
import { schema } from "./data.js";

export type IcebergBenchMode = "plain" | "background" | "synchronous" | "floor";

/** A new table in a new folder under `parent`: `iceberg: true` is background metadata (the default). */
export async function openBenchTable(mode: IcebergBenchMode | string, fsync: boolean, parent: string) {
  const root = await mkdtemp(join(parent, "side-"));
  const iceberg =
    mode === "plain" || mode === "floor" ? false : mode === "background" ? true : { background: false };
  const def = ava.defineNamespace({
    name: "bench",
    tables: { points: ava.table({ schema, iceberg, inline: false }) },
  });
  const ns = await def.open({ storage: nodeStorage({ root, fsync }) });
  await ns.push();
  return { ns, root };
}
