// A damaged catalog is reported as CATALOG_CORRUPT naming the entry or checkpoint section, never as a
// JSON SyntaxError or a silently shorter history.
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { nodeStorage } from "../../src/node.js";
import { Docs, expectAvaError } from "../shared/fixtures.js";

async function tableWithCommits(n: number) {
  const root = await mkdtemp(join(tmpdir(), "ava-corrupt-"));
  const ns = await Docs.open({ storage: nodeStorage({ root, fsync: false }) });
  await ns.push();
  for (let i = 0; i < n; i++) await ns.plain.append({ k: `k${i}`, v: i });
  return root;
}

it("a garbled log entry names its version", async () => {
  const root = await tableWithCommits(3);
  await writeFile(join(root, "_catalog", "log", `${"3".padStart(20, "0")}.json`), '{"ops": [ truncated');
  const ns = await Docs.open({ storage: nodeStorage({ root }) });
  await expectAvaError(ns.plain.history(), "CATALOG_CORRUPT", /catalog entry 3/);
});

it("a checkpoint whose table history is damaged names the checkpoint and table when it is needed", async () => {
  const root = await tableWithCommits(120); // a checkpoint at version 100
  const dir = join(root, "_catalog", "checkpoints");
  const [name] = await readdir(dir);
  const lines = (await readFile(join(dir, name!), "utf8")).split("\n");
  const damaged = [lines[0], ...lines.slice(1).map((l) => l.slice(0, l.length / 2))].join("\n");
  await writeFile(join(dir, name!), damaged);

  const ns = await Docs.open({ storage: nodeStorage({ root }) });
  // Opening needs only the header: the current snapshot is there.
  expect((await ns.plain.currentSnapshot())?.sequenceNumber).toBe(120);
  await expectAvaError(ns.plain.history(), "CATALOG_CORRUPT", /checkpoint 100/, /docs\.plain/);
});
