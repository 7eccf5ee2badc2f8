// The operator commands of `avalanche-web` (tables, sql, runs, run, rerun, compact, maintain, vacuum), each
// run as a user would: a separate Node process on a real storage folder.
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { beforeAll, describe, expect, it } from "vitest";
import * as ava from "../../src/node.js";
import { bundledCli, tsxCli } from "../support/cli-bundle.js";
import { Ops } from "./fixtures/operator-flows.js";

const FLOWS = join(import.meta.dirname, "fixtures", "operator-flows.ts");

let root: string;
let home: string;
let bundle: string;
const spawnCli = (argv: string[], input?: string, env: Record<string, string> = {}) =>
  spawnSync(process.execPath, argv, {
    encoding: "utf8",
    env: { ...process.env, HOME: home, AVALANCHE_ROOT: root, ...env },
    ...(input === undefined ? {} : { input }),
  });
const cli = (args: string[], input?: string, env?: Record<string, string>) =>
  spawnCli([bundle, ...args], input, env);
/** For the commands given the test's TypeScript workflow module (run, rerun): the source through tsx. */
const cliTs = (args: string[]) => spawnCli(tsxCli(...args));
const json = (args: string[]) => {
  const r = cli([...args, "--json"]);
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout);
};

let first: string; // the readings' first snapshot
let runId: string;

beforeAll(async () => {
  bundle = await bundledCli();
  root = await mkdtemp(join(tmpdir(), "ava-ops-"));
  home = await mkdtemp(join(tmpdir(), "ava-home-"));
  const ns = await Ops.open({ storage: ava.nodeStorage({ root }) });
  await ns.push();
  first = (await ns.readings.append([{ sensor: "a", value: 1.5, n: 1 }])).snapshotId;
  await ns.readings.append([
    { sensor: "b", value: 2.5, n: 2 },
    { sensor: 'c, "quoted"', value: -3, n: 3 },
  ]);
}, 60_000);

describe("avalanche-web tables", () => {
  it("ls lists every table with snapshots, rows, files and bytes (text, JSON, CSV)", () => {
    const text = cli(["tables"]);
    expect(text.status).toBe(0);
    const lines = text.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^table\s+snapshots\s+rows\s+files\s+bytes\s+updated$/);
    expect(lines[2]).toMatch(/^ops\.readings\s+2\s+3\s+2\s+\d+/);
    const listed = json(["tables", "ls"]);
    expect(listed.map((t: { table: string }) => t.table)).toEqual(["ops.readings", "ops.ticks"]);
    expect(listed[0]).toMatchObject({ snapshots: 2, rows: 3, files: 2 });
    expect(listed[0].bytes).toBeGreaterThan(0);
    const csv = cli(["tables", "--csv", "--root", root]).stdout.trim().split("\n");
    expect(csv[0]).toBe("table,snapshots,rows,files,bytes,updated");
    expect(csv[2]).toMatch(/^ops\.ticks,0,0,0,0,/);
  }, 240_000); // each command is a process of its own

  it("show gives the schema with the provenance columns marked, and the table's size", () => {
    const info = json(["tables", "show", "ops.readings"]);
    expect(info).toMatchObject({ table: "ops.readings", snapshots: 2, rows: 3, files: 2, rowLineage: true });
    expect(info.columns.slice(0, 3)).toEqual([
      { name: "sensor", type: "Utf8", nullable: false, provenance: false },
      { name: "value", type: "Float64", nullable: false, provenance: false },
      { name: "n", type: "Int64", nullable: false, provenance: false },
    ]);
    expect(
      info.columns.filter((c: { provenance: boolean }) => c.provenance).map((c: { name: string }) => c.name),
    ).toContain("_ava_run_id");
    const text = cli(["tables", "show", "ops.readings"]).stdout;
    expect(text).toMatch(/^snapshots:\s+2$/m);
    expect(text).toMatch(/^_ava_updated_at\s+Timestamp<MICROSECOND, UTC>\s+no\s+yes$/m);
  }, 240_000); // each command is a process of its own

  it("history lists snapshots oldest first", () => {
    const h = json(["tables", "history", "ops.readings"]);
    expect(h.map((s: { seq: number }) => s.seq)).toEqual([1, 2]);
    expect(h[0]).toMatchObject({ snapshot: first, operation: "append", addedRows: 1, totalRows: 1 });
    expect(h[1]).toMatchObject({ addedRows: 2, totalRows: 3 });
  }, 240_000); // each command is a process of its own

  it("head prints the first rows, filtered, limited, at a snapshot; CSV quotes; Parquet is a real file", async () => {
    const text = cli(["tables", "head", "ops.readings", "--columns", "sensor,n"]).stdout.trim().split("\n");
    expect(text).toEqual([
      "sensor       n",
      "-----------  -",
      "a            1",
      "b            2",
      'c, "quoted"  3',
      "(3 rows)",
    ]);
    expect(
      json(["tables", "head", "ops.readings", "--where", "n >= 2 and value > 0", "--columns", "sensor"]),
    ).toEqual([{ sensor: "b" }]);
    expect(json(["tables", "head", "ops.readings", "-n", "2", "--columns", "n"])).toEqual([
      { n: 1 },
      { n: 2 },
    ]);
    expect(json(["tables", "head", "ops.readings", "--at", first, "--columns", "sensor"])).toEqual([
      { sensor: "a" },
    ]);
    expect(
      json([
        "tables",
        "head",
        "ops.readings",
        "--where",
        "sensor in ('a', 'c, \"quoted\"') or n is null",
        "--columns",
        "n",
      ]),
    ).toEqual([{ n: 1 }, { n: 3 }]);
    const csv = cli(["tables", "head", "ops.readings", "--csv", "--columns", "sensor,value"]).stdout;
    expect(csv).toBe('sensor,value\na,1.5\nb,2.5\n"c, ""quoted""",-3\n');
    const file = join(root, "..", `head-${Date.now()}.parquet`);
    const p = cli(["tables", "head", "ops.readings", "--parquet", file]);
    expect(p.stdout.trim()).toBe(`3 rows -> ${file}`);
    const db = await DuckDBInstance.create(":memory:");
    const conn = await db.connect();
    const rows = (
      await conn.runAndReadAll(`SELECT sensor, n FROM read_parquet('${file}') ORDER BY n`)
    ).getRowObjects();
    expect(rows.map((r) => r.sensor)).toEqual(["a", "b", 'c, "quoted"']);
    conn.closeSync();
  }, 240_000); // each command is a process of its own

  it("refuses bad input with one line and exit 1, wrong arguments with the usage and exit 2", () => {
    const missing = cli(["tables", "show", "ops.nope"]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe(
      "avalanche-web: table ops.nope does not exist (tables: ops.readings, ops.ticks)\n",
    );
    const where = cli(["tables", "head", "ops.readings", "--where", "n >"]);
    expect(where.status).toBe(1);
    expect(where.stderr).toMatch(/^avalanche-web: filter "n >": a value is missing after n\n$/);
    const column = cli(["tables", "head", "ops.readings", "--where", "nope = 1"]);
    expect(column.stderr).toMatch(/filter column "nope" is not in table ops.readings/);
    const snap = cli(["tables", "head", "ops.readings", "--at", "01NOSUCH"]);
    expect(snap.stderr).toBe("avalanche-web: table ops.readings has no snapshot 01NOSUCH\n");
    const noRoot = cli(["tables", "--root", join(root, "typo")]);
    expect(noRoot.status).toBe(1);
    expect(noRoot.stderr).toMatch(/^avalanche-web: no storage at .*typo \(give --root DIR/);
    const usage = cli(["tables", "head"]);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/tables head: expects NAMESPACE.TABLE/);
    expect(cli(["tables", "head", "ops.readings", "-n", "x"]).status).toBe(2);
    expect(cli(["tables", "ls", "--bogus"]).stderr).toMatch(/unknown option --bogus/);
    const help = cli(["tables", "--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/exit codes:/);
  }, 240_000); // each command is a process of its own
});

describe("avalanche-web sql", () => {
  it("runs one statement over every table (qualified and bare names), with time travel", () => {
    expect(json(["sql", "SELECT sensor, n FROM ops.readings WHERE n > 1 ORDER BY n"])).toEqual([
      { sensor: "b", n: 2 },
      { sensor: 'c, "quoted"', n: 3 },
    ]);
    expect(json(["sql", "SELECT count(*) AS c FROM readings"])).toEqual([{ c: 3 }]);
    expect(json(["sql", "SELECT count(*) AS c FROM ops.readings", "--at", `ops.readings=${first}`])).toEqual([
      { c: 1 },
    ]);
    const text = cli(["sql", "SELECT 1 AS one"]).stdout;
    expect(text).toBe("one\n---\n1\n(1 row)\n");
  }, 240_000); // each command is a process of its own

  it("refuses bad SQL and unknown pins in one line", () => {
    const bad = cli(["sql", "SELEC nope"]);
    expect(bad.status).toBe(1);
    expect(bad.stderr.split("\n")).toHaveLength(2);
    expect(bad.stderr).toMatch(/^avalanche-web: Parser Error: syntax error/);
    const pin = cli(["sql", "SELECT 1", "--at", "ops.nope=x"]);
    expect(pin.stderr).toBe("avalanche-web: --at: ops.nope is not a table of this namespace\n");
    expect(cli(["sql", "SELECT 1", "--at", "nonsense"]).status).toBe(2);
  }, 240_000); // each command is a process of its own

  it("the prompt reads multi-line statements from a pipe, keeps going after an error, and exits 1 for it", () => {
    const script =
      "SELECT count(*) AS c\n  FROM ops.readings;\nSELECT nope FROM ops.readings;\n.tables\nSELECT 2 AS two;\n";
    const r = cli(["sql", "--csv"], script);
    expect(r.stdout).toBe("c\n3\nname\nops.readings\nops.ticks\ntwo\n2\n");
    expect(r.stderr).toMatch(/^error: Binder Error: Referenced column "nope" not found/);
    expect(r.status).toBe(1);
    const clean = cli(["sql", "--json"], "SELECT 1 AS a;\n");
    expect(clean.stdout).toBe('[{"a":1}]\n');
    expect(clean.status).toBe(0);
    const unfinished = cli(["sql"], "SELECT 1");
    expect(unfinished.stderr).toMatch(/ended inside a statement/);
    expect(unfinished.status).toBe(1);
  }, 240_000); // each command is a process of its own
});

describe("avalanche-web run, runs, rerun", () => {
  it("run starts a workflow from a module with its input and reports plain progress lines off a terminal", () => {
    const r = cliTs(["run", `${FLOWS}#ingest`, "--input", '{"count": 4, "sensor": "cli"}']);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^started generate$/m);
    expect(r.stdout).toMatch(/^success store \(2\/3\)$/m);
    expect(r.stdout).toMatch(/^ {2}store: \[info\] stored 4 readings$/m);
    const done = /^run (\S+) success in /m.exec(r.stdout);
    expect(done).not.toBeNull();
    runId = done![1]!;
    expect(json(["sql", "SELECT count(*) AS c FROM ops.readings WHERE sensor = 'cli'"])).toEqual([{ c: 4 }]);
  }, 240_000); // each command is a process of its own

  it("runs ls and runs show give statuses, durations, logs and what each node wrote", () => {
    const runs = json(["runs"]);
    expect(runs).toEqual([
      expect.objectContaining({ run: runId, workflow: "ingest", status: "success", nodes: "3/3" }),
    ]);
    expect(json(["runs", "ls", "--workflow", "other"])).toEqual([]);
    const shown = json(["runs", "show", runId]);
    expect(shown.nodes.store).toMatchObject({
      status: "success",
      logs: [expect.objectContaining({ message: "stored 4 readings" })],
    });
    expect(shown.writes.store).toEqual([expect.objectContaining({ table: "ops.readings", rows: 4 })]);
    const text = cli(["runs", "show", runId]).stdout;
    expect(text).toMatch(/^status:\s+success$/m);
    expect(text).toMatch(/^store\s+step\s+success\s+(\d+ ms|[\d.]+ s)/m);
    expect(text).toMatch(/^ {2}wrote 4 rows to ops.readings \(snapshot \w+\)$/m);
  }, 240_000); // each command is a process of its own

  it("a failing run exits 1 and names the node and its error; runs show keeps it", () => {
    const r = cliTs(["run", `${FLOWS}#broken`]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^ {2}explode failed: INVALID_ARGUMENT: explode always fails$/m);
    const id = /^run (\S+) failed/m.exec(r.stdout)![1]!;
    expect(cli(["runs", "show", id]).stdout).toMatch(
      /^explode\s+step\s+failed\s+(\d+ ms|[\d.]+ s)\s+INVALID_ARGUMENT: explode always fails$/m,
    );
  }, 240_000); // each command is a process of its own

  it("rerun runs part of a recorded run again (lazy: the start node only)", () => {
    const r = cliTs(["rerun", runId, "--module", FLOWS, "--start", "total", "--lazy", "--json"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.status).toBe("success");
    expect(result.nodes.total.status).toBe("success");
    expect(result.nodes.store.status).toBe("not_run");
    expect(json(["runs", "show", result.runId]).rerunOf).toBe(runId);
  }, 240_000); // each command is a process of its own

  it("refuses a bad module, workflow, input or run id in one line", () => {
    expect(cliTs(["run", `${FLOWS}#nope`]).stderr).toMatch(
      /^avalanche-web: module .* exports no workflow nope \(its workflows: broken, ingest, minutely, sleepy\)\n$/,
    );
    expect(cli(["run", "/nowhere/flows.ts#x"]).stderr).toBe(
      "avalanche-web: workflow module /nowhere/flows.ts does not exist\n",
    );
    expect(cliTs(["run", `${FLOWS}#ingest`, "--input", "{nope"]).stderr).toMatch(
      /^avalanche-web: --input is not JSON/,
    );
    expect(cliTs(["run", FLOWS]).stderr).toMatch(/MODULE#WORKFLOW/);
    expect(cli(["runs", "show", "01NOSUCHRUN"]).stderr).toBe(
      "avalanche-web: no run 01NOSUCHRUN is recorded in this storage\n",
    );
    expect(cliTs(["rerun", runId, "--module", FLOWS, "--start", "nope"]).stderr).toBe(
      "avalanche-web: workflow ingest has no node nope\n",
    );
    expect(cliTs(["rerun", runId, "--module", FLOWS]).status).toBe(2);
  }, 240_000); // each command is a process of its own
});

describe("avalanche-web vacuum", () => {
  it("removes an orphaned data file and keeps referenced ones", async () => {
    const orphan = join(root, "data", "ops", "readings", "orphan.parquet");
    // The table's appends so far were small enough to be inlined: its data folder may not exist yet.
    await mkdir(dirname(orphan), { recursive: true });
    await writeFile(orphan, "not referenced");
    const r = cli(["vacuum", "--older-than-ms", "0"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("removed data/ops/readings/orphan.parquet");
    await expect(readFile(orphan)).rejects.toThrow();
    expect(json(["tables", "head", "ops.readings", "--columns", "n", "-n", "1"])).toEqual([{ n: 1 }]);
    expect(cli(["vacuum", "--older-than-ms", "-5"]).status).toBe(2);
  }, 240_000); // each command is a process of its own
});

describe("avalanche-web compact and maintain", () => {
  it("compact merges the table's small files; maintain then expires the old snapshots and deletes their files", () => {
    // Earlier tests' runs appended too: the counts are taken from the table as it is now.
    const before = json(["tables", "show", "ops.readings"]);
    expect(before.files).toBeGreaterThanOrEqual(2);
    const compacted = json(["compact", "ops.readings"]);
    expect(compacted).toMatchObject({ filesRemoved: before.files, filesAdded: 1, filesAfter: 1 });
    const done = json(["maintain", "--retain-ms", "0", "--grace-ms", "0"]);
    // Every append expires (the compaction's snapshot is the newest, kept), and the files only they read go.
    expect(done).toMatchObject({ snapshotsExpired: before.snapshots, filesDeleted: before.files });
    expect(json(["tables", "show", "ops.readings"])).toMatchObject({
      snapshots: 1,
      rows: before.rows,
      files: 1,
    });
    expect(cli(["compact", "ops.nosuch"]).stderr).toMatch(/^avalanche-web: .*ops\.nosuch.*\n$/);
    expect(cli(["maintain", "--min-snapshots", "0"]).status).toBe(2);
  }, 240_000); // each command is a process of its own
});

describe("avalanche-web help", () => {
  it("lists every command group and the exit codes on stdout", () => {
    const r = cli(["--help"]);
    expect(r.status).toBe(0);
    for (const g of [
      "tables",
      "sql",
      "runs",
      "run MODULE#WORKFLOW",
      "rerun",
      "maintain",
      "compact NS.TABLE",
      "vacuum",
      "serve",
      "avro cat",
    ])
      expect(r.stdout).toContain(`avalanche-web ${g}`);
    expect(r.stdout).toMatch(/2 {2}wrong arguments/);
  }, 240_000); // each command is a process of its own
});
