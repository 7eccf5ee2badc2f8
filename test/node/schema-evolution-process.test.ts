// An app's older build running beside a newer one (another process, the old declaration): it gets a clear
// SCHEMA_MISMATCH for push, append and read, and the table is left exactly as the newer build left it.
import { spawn } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { z } from "zod";
import * as ava from "../../src/index.js";
import { nodeStorage } from "../../src/node.js";

const CHILD = join(import.meta.dirname, "fixtures", "old-schema-child.ts");

const New = ava.defineNamespace({
  name: "shop",
  tables: {
    items: ava.table({ schema: z.object({ id: z.string(), qty: z.bigint(), note: z.string().optional() }) }),
  },
});
const Old = ava.defineNamespace({
  name: "shop",
  tables: { items: ava.table({ schema: z.object({ id: z.string(), qty: z.int() }) }) },
});

function runChild(root: string): Promise<Record<string, { code?: string; message?: string; ok?: boolean }>> {
  const child = spawn(process.execPath, ["--import", "tsx", CHILD, root], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => {
    out += d;
  });
  child.stderr.on("data", (d) => {
    err += d;
  });
  return new Promise((resolve, reject) =>
    child.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child ${code}: ${err}`)),
    ),
  );
}

it("a process with the old schema definition is refused clearly and changes nothing", async () => {
  const root = await mkdtemp(join(tmpdir(), "ava-old-schema-"));
  const old = await Old.open({ storage: nodeStorage({ root }) });
  await old.push();
  await old.items.append([{ id: "a", qty: 1 }]);
  const ns = await New.open({ storage: nodeStorage({ root }) });
  await ns.push();
  await ns.items.append([{ id: "b", qty: 2n ** 60n, note: "n" }]);
  const storage = nodeStorage({ root });
  const version = (await storage.catalog.current()).version;
  const files = (await storage.files.list("data/")).length;

  const result = await runChild(root);
  for (const step of ["push", "append", "read"]) {
    expect(result[step], step).toMatchObject({ code: "SCHEMA_MISMATCH" });
    expect(result[step]!.message).toMatch(/shop\.items is at schema version 1; this code declares version 0/);
  }
  const after = nodeStorage({ root });
  expect((await after.catalog.current()).version).toBe(version);
  expect(await after.files.list("data/")).toHaveLength(files);
  expect(await (await New.open({ storage: after })).items.readModels()).toEqual([
    { id: "a", qty: 1n },
    { id: "b", qty: 2n ** 60n, note: "n" },
  ]);
}, 60_000);

it("an append racing an evolution lands tagged with the schema it was written under, and reads right", async () => {
  const root = await mkdtemp(join(tmpdir(), "ava-evolve-race-"));
  const slow = await Old.open({ storage: nodeStorage({ root }) });
  await slow.push(); // this instance now holds the catalog at schema version 0
  await (await New.open({ storage: nodeStorage({ root }) })).push();
  // Its pre-flight judges on the state it holds, so the write goes ahead under version 0 — and is read
  // under version 1 like any file of version 0 (the commit itself never depends on the schema version).
  const res = await slow.items.append([{ id: "racer", qty: 5 }]);
  expect(res.snapshot.schemaId).toBe(1);
  expect(res.snapshot.addedFiles[0]!.schemaId).toBeUndefined();
  const ns = await New.open({ storage: nodeStorage({ root }) });
  expect(await ns.items.readModels()).toEqual([{ id: "racer", qty: 5n }]);
});
