// A damaged catalog is reported as CATALOG_CORRUPT naming the entry or checkpoint, never as a JSON
// SyntaxError, a TypeError or a silently shorter history; a damaged checkpoint gives way to the log, and
// nothing is deleted while the catalog is in doubt.
import { cp, mkdtemp, readdir, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as ava from "../../src/index.js";
import { isAvaError, type Storage } from "../../src/index.js";
import { nodeStorage } from "../../src/node.js";
import { LogCatalog } from "../../src/storage/catalog/log-catalog.js";
import { NodeCatalogLog } from "../../src/storage/node/node-catalog-log.js";
import { NodeFileStore } from "../../src/storage/node/node-file-store.js";
import { z } from "zod";
import { expectAvaError, telemetry, telemetrySchema } from "../shared/fixtures.js";

/** One-row appends as data files (not inlined): these tests count the files vacuum must leave alone. */
const Docs = ava.defineNamespace({
  name: "docs",
  tables: {
    plain: ava.table({ schema: z.object({ k: z.string(), v: z.int() }), rowLineage: false, inline: false }),
  },
});

const entry = (v: number) => `${String(v).padStart(20, "0")}.json`;

/** Entry `version`'s text, however it is stored (a JSON file of its own, or a record in a segment). */
async function entryText(root: string, version: number): Promise<string> {
  const [text] = await new NodeCatalogLog(root, false).readFrom(version);
  return text!;
}

/**
 * Replaces one entry's file with `text` (the JSON format entries had before segments, which readers still
 * take): entries are hard links to their writer's segment, and writing through the name would change every
 * entry in that segment.
 */
async function replaceEntry(file: string, text: string): Promise<void> {
  await rm(file);
  await writeFile(file, text);
}

/**
 * A Node storage whose catalog checkpoints every `checkpointEvery` versions exactly (growth 0: whatever
 * the entries' size; nodeStorage waits for at least 100 versions and entries of half a checkpoint's size).
 */
function storageAt(root: string, checkpointEvery = 100): Storage {
  return {
    descriptor: { kind: "node", root },
    files: new NodeFileStore(root, false),
    catalog: new LogCatalog(new NodeCatalogLog(root, false), { checkpointEvery, checkpointGrowth: 0 }),
  };
}

/** `n` appends of one row each to docs.plain: versions 2…n+1 (version 1 creates the namespace and tables). */
async function tableWithCommits(n: number, checkpointEvery = 100) {
  const root = await mkdtemp(join(tmpdir(), "ava-corrupt-"));
  const ns = await Docs.open({ storage: storageAt(root, checkpointEvery) });
  await ns.push();
  for (let i = 0; i < n; i++) await ns.plain.append({ k: `k${i}`, v: i });
  return root;
}

const dataFiles = async (root: string) => (await readdir(join(root, "data", "docs", "plain"))).sort();

it("a garbled log entry names its version and file", async () => {
  const root = await tableWithCommits(3);
  await replaceEntry(join(root, "_catalog", "log", entry(3)), '{"ops": [ truncated');
  const ns = await Docs.open({ storage: nodeStorage({ root }) });
  await expectAvaError(ns.plain.history(), "CATALOG_CORRUPT", /catalog entry 3/, /_catalog\/log\/0+3\.json/);
});

describe("a gap in the log", () => {
  it("is CATALOG_CORRUPT for reads, appends and vacuum, and vacuum deletes nothing", async () => {
    const root = await tableWithCommits(9); // versions 1..10
    const before = await dataFiles(root);
    await unlink(join(root, "_catalog", "log", entry(6)));
    const ns = await Docs.open({ storage: nodeStorage({ root }) });
    await expectAvaError(ns.plain.history(), "CATALOG_CORRUPT", /entry 6 is missing/, /entry 7 exists/);
    await expectAvaError(ns.plain.read(), "CATALOG_CORRUPT", /gap/);
    await expectAvaError(ns.plain.append({ k: "new", v: 0 }), "CATALOG_CORRUPT", /gap/);
    await expectAvaError(ns.vacuum({ olderThanMs: 0 }), "CATALOG_CORRUPT", /gap/);
    expect(await dataFiles(root)).toEqual(before);
    expect(await readdir(join(root, "_catalog", "log"))).not.toContain(entry(6)); // the append reused nothing
  });

  it("is found when several entries in a row are missing", async () => {
    const root = await tableWithCommits(9);
    for (const v of [5, 6, 7]) await unlink(join(root, "_catalog", "log", entry(v)));
    const ns = await Docs.open({ storage: nodeStorage({ root }) });
    await expectAvaError(ns.plain.history(), "CATALOG_CORRUPT", /entry 5 is missing/, /entry 8 exists/);
  });

  it("opened by an instance that already caught up is found at its next catch-up", async () => {
    const root = await tableWithCommits(3); // versions 1..4
    const ns = await Docs.open({ storage: nodeStorage({ root }) });
    expect(await ns.plain.history()).toHaveLength(3);
    const other = await Docs.open({ storage: nodeStorage({ root }) });
    await other.plain.append({ k: "a", v: 1 }); // 5
    await other.plain.append({ k: "b", v: 2 }); // 6
    await unlink(join(root, "_catalog", "log", entry(5)));
    await expectAvaError(ns.plain.history(), "CATALOG_CORRUPT", /entry 5 is missing/);
  });
});

describe("checkpoints", () => {
  it("a log deleted beside a checkpoint is CATALOG_CORRUPT, not the table as of the checkpoint", async () => {
    const root = await tableWithCommits(11, 4); // versions 1..12, checkpoints at 4, 8, 12
    await rm(join(root, "_catalog", "log"), { recursive: true });
    const ns = await Docs.open({ storage: nodeStorage({ root }) });
    await expectAvaError(ns.plain.history(), "CATALOG_CORRUPT", /checkpoint 12/, /log was lost/);
    await expectAvaError(ns.vacuum({ olderThanMs: 0 }), "CATALOG_CORRUPT");
    expect(await dataFiles(root)).toHaveLength(11);
  });

  it("a lost catalog makes vacuum refuse instead of deleting every data file", async () => {
    const root = await tableWithCommits(3);
    await rm(join(root, "_catalog"), { recursive: true });
    const ns = await Docs.open({ storage: nodeStorage({ root }) });
    await expectAvaError(ns.vacuum({ olderThanMs: 0 }), "CATALOG_CORRUPT", /belongs to no table/);
    expect(await dataFiles(root)).toHaveLength(3);
  });

  it("a damaged table history in a checkpoint gives way to the complete log", async () => {
    const root = await tableWithCommits(120); // a checkpoint at version 100
    const dir = join(root, "_catalog", "checkpoints");
    const [name] = await readdir(dir);
    const lines = (await readFile(join(dir, name!), "utf8")).split("\n");
    const damaged = [lines[0], ...lines.slice(1).map((l) => l.slice(0, l.length / 2))].join("\n");
    await writeFile(join(dir, name!), damaged);
    const ns = await Docs.open({ storage: nodeStorage({ root }) });
    expect(await ns.plain.history()).toHaveLength(120);
    expect((await ns.plain.read()).numRows).toBe(120);
  });

  for (const [what, text] of [
    ["empty object", "{}"],
    ["garbled header", "{not json"],
    ["wrong version", null],
  ] as const) {
    it(`a checkpoint with a ${what} gives way to the log, or names itself when the log cannot replace it`, async () => {
      const root = await tableWithCommits(11, 4);
      const file = join(root, "_catalog", "checkpoints", `${String(12).padStart(20, "0")}.jsonl`);
      const good = await readFile(file, "utf8");
      await writeFile(file, text ?? good.replace('"version":12', '"version":11'));
      const ns = await Docs.open({ storage: nodeStorage({ root }) });
      expect((await ns.plain.read()).numRows).toBe(11);

      await unlink(join(root, "_catalog", "log", entry(1)));
      const fresh = await Docs.open({ storage: nodeStorage({ root }) });
      await expectAvaError(fresh.plain.history(), "CATALOG_CORRUPT", /checkpoint 12/);
    });
  }
});

describe("log entries of valid JSON but the wrong shape", () => {
  const cases: [string, string][] = [
    ["{}", "{}"],
    ["null", "null"],
    ["ops: 5", '{"ops":5}'],
    ["ops: [null]", '{"ops":[null]}'],
    ["an unknown op", '{"ops":[{"op":"dropEverything"}]}'],
    [
      "a snapshot without addedFiles",
      '{"ops":[{"op":"commitSnapshot","namespace":"docs","table":"plain","snapshot":{"id":"x","operation":"append","timestampMs":1}}]}',
    ],
    [
      "a data file without a path",
      '{"ops":[{"op":"commitSnapshot","namespace":"docs","table":"plain","snapshot":{"id":"x","operation":"append","timestampMs":1,"addedFiles":[{"rowCount":1}]}}]}',
    ],
    ["a createTable without a schema", '{"ops":[{"op":"createTable","namespace":"docs","table":"t"}]}'],
    [
      "an entry that does not apply (a table that does not exist)",
      '{"ops":[{"op":"commitSnapshot","namespace":"docs","table":"nope","snapshot":{"id":"x","operation":"append","timestampMs":1,"addedFiles":[]}}]}',
    ],
  ];
  for (const [what, text] of cases) {
    it(`${what} is CATALOG_CORRUPT naming the file`, async () => {
      const root = await tableWithCommits(3);
      await replaceEntry(join(root, "_catalog", "log", entry(4)), text);
      const ns = await Docs.open({ storage: nodeStorage({ root }) });
      await expectAvaError(ns.plain.history(), "CATALOG_CORRUPT", /_catalog\/log\/0+4\.json/);
    });
  }
});

describe("random damage (property): every outcome is a correct read or a typed error", () => {
  it("truncates, deletes, garbles and reshapes log entries and checkpoints", async () => {
    const commits = 14;
    const template = await tableWithCommits(commits, 4); // versions 1..15, checkpoints at 4, 8, 12
    const all = Array.from({ length: commits }, (_, i) => `k${i}`);
    let seed = 20261130;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return Math.floor((seed / 2 ** 31) * n);
    };
    const SHAPES = ["{}", "null", '{"ops":5}', '{"ops":[null]}', "[]", '"x"', "1e999"];
    const outcomes = { read: 0, partial: 0, typed: 0 };
    for (let round = 0; round < 60; round++) {
      const root = `${template}-r${round}`;
      await cp(template, root, { recursive: true });
      const logDir = join(root, "_catalog", "log");
      const cpDir = join(root, "_catalog", "checkpoints");
      const targets = [
        ...(await readdir(logDir)).map((n) => join(logDir, n)),
        ...(await readdir(cpDir)).map((n) => join(cpDir, n)),
      ];
      const damaged: string[] = [];
      for (let d = 0, n = 1 + random(3); d < n; d++) {
        const file = targets[random(targets.length)]!;
        const bytes = await readFile(file).catch(() => undefined);
        if (!bytes) continue;
        damaged.push(file);
        switch (random(4)) {
          case 0:
            await unlink(file);
            break;
          case 1:
            await writeFile(file, bytes.subarray(0, random(bytes.length)));
            break;
          case 2:
            for (let k = 0, m = 1 + random(4); k < m; k++) bytes[random(bytes.length)] = 32 + random(95);
            await writeFile(file, bytes);
            break;
          default:
            await writeFile(file, SHAPES[random(SHAPES.length)]!);
        }
      }
      const ns = await Docs.open({ storage: nodeStorage({ root }) });
      try {
        const rows = (await ns.plain.read()).toArray().map((r) => String(r.k));
        const history = await ns.plain.history();
        // Deleting the newest entry is indistinguishable from a commit that never happened: the table as
        // of the commit before is a correct answer then. Anything else must be the whole table.
        const newestLost = damaged.some((f) => f.endsWith(entry(commits + 1)));
        if (rows.length === commits) outcomes.read++;
        else {
          expect(newestLost, `round ${round}: ${rows.length} rows after damaging ${damaged}`).toBe(true);
          outcomes.partial++;
        }
        expect(rows, `round ${round}`).toEqual(all.slice(0, rows.length));
        expect(history.length, `round ${round}`).toBe(rows.length);
      } catch (err) {
        if (!isAvaError(err)) throw new Error(`round ${round} (${damaged}): untyped ${String(err)}`);
        outcomes.typed++;
      }
      await rm(root, { recursive: true });
    }
    // The rounds exercise both sides: damage that is survived (checkpoints) and damage that is refused.
    expect(outcomes.read).toBeGreaterThan(5);
    expect(outcomes.typed).toBeGreaterThan(5);
  });
});

it("a catalog entry that fails to stage (a write refused mid-file, as on a full disk) leaves no temp file", async () => {
  const { execFileSync } = await import("node:child_process");
  const root = await mkdtemp(join(tmpdir(), "ava-stage-"));
  const child = join(import.meta.dirname, "fixtures", "stage-child.ts");
  // A 512-byte file size limit: the push's entry (three table schemas) cannot be written whole.
  const out = execFileSync(
    "bash",
    ["-c", `ulimit -f 1; exec "${process.execPath}" --import tsx "${child}" "${root}"`],
    {
      encoding: "utf8",
    },
  );
  expect(out).toMatch(/IO_ERROR: staging a catalog entry: EFBIG/);
  expect(await readdir(join(root, "_catalog", "tmp"))).toEqual([]);
  expect(await readdir(join(root, "_catalog", "wal"))).toEqual([]); // nor a segment
  await rm(root, { recursive: true });
});

describe("inlined rows (a payload in the catalog entry)", () => {
  const Inl = ava.defineNamespace({
    name: "inl",
    tables: { t: ava.table({ schema: telemetrySchema, inline: true }) },
  });

  /** Version 2 inlines 5 rows; returns the root and the text of its entry. */
  async function inlinedEntry() {
    const root = await mkdtemp(join(tmpdir(), "ava-inline-crc-"));
    const ns = await Inl.open({ storage: nodeStorage({ root }) });
    await ns.push();
    const res = await ns.t.append(telemetry("a", 0, 5));
    expect(res.snapshot.addedFiles[0]!.inlineCrc).toBeTypeOf("number");
    const file = join(root, "_catalog", "log", entry(2));
    return { root, file, text: await entryText(root, 2), path: res.snapshot.addedFiles[0]!.path };
  }

  it("a changed base64 letter is CATALOG_CORRUPT naming the file, not other values", async () => {
    const { root, file, text, path } = await inlinedEntry();
    const payload = /"inline":"([^"]+)"/.exec(text)!;
    // A letter in the middle of the payload (the column values), changed to another valid letter.
    const at = payload.index + '"inline":"'.length + Math.floor(payload[1]!.length * 0.8);
    const flipped = text[at] === "A" ? "B" : "A";
    await replaceEntry(file, text.slice(0, at) + flipped + text.slice(at + 1));
    const ns = await Inl.open({ storage: nodeStorage({ root }) });
    const escaped = path.replace(/[.]/g, "\\.");
    await expectAvaError(ns.t.read(), "CATALOG_CORRUPT", new RegExp(escaped), /CRC-32/);
    await expectAvaError(ns.t.scan({ filter: (w) => w.eq("channel", "a") }).toArrow(), "CATALOG_CORRUPT");
  });

  it("a payload that is not base64 is CATALOG_CORRUPT naming the file", async () => {
    const { root, file, text, path } = await inlinedEntry();
    await replaceEntry(file, text.replace(/"inline":"([^"]{4})/, '"inline":"!@#$'));
    const ns = await Inl.open({ storage: nodeStorage({ root }) });
    await expectAvaError(ns.t.read(), "CATALOG_CORRUPT", new RegExp(path.replace(/[.]/g, "\\.")), /base64/);
  });

  it("an entry inlined before the CRC was kept stays readable", async () => {
    const { root, file, text } = await inlinedEntry();
    const old = text.replace(/,"inlineCrc":\d+/, "");
    expect(old).not.toBe(text);
    await replaceEntry(file, old);
    const ns = await Inl.open({ storage: nodeStorage({ root }) });
    expect((await ns.t.read()).numRows).toBe(5);
  });
});
