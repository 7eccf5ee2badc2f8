// The `avalanche-web` command, run as a user would (a separate Node process).
import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { beforeAll, describe, expect, it } from "vitest";
import { encodeAvroStream, readAvroStream } from "../../src/avro.js";
import { RECORDS } from "../shared/avro-records.js";
import { bundledCli, CLI_SOURCE } from "../support/cli-bundle.js";

let bundle: string;
const cli = (args: string[], input?: string) =>
  spawnSync(process.execPath, [bundle, ...args], {
    encoding: "utf8",
    ...(input === undefined ? {} : { input }),
  });

let dir: string;
let file: string;
let tricky: string;
beforeAll(async () => {
  bundle = await bundledCli();
  dir = await mkdtemp(join(tmpdir(), "ava-cli-"));
  file = join(dir, "flight.avro");
  await writeFile(file, await encodeAvroStream(RECORDS, { codec: "snappy", recordsPerBlock: 4 }));
  // Strings that look like numbers and JSON must survive cat -> write untouched.
  tricky = join(dir, "tricky.avro");
  const record = {
    channel: "#engine, 12",
    timestamps: BigInt64Array.of(-5n),
    values: { kind: "string" as const, values: ["[1, 2], 3"] },
    tags: { "k:1": "-7" },
  };
  await writeFile(tricky, await encodeAvroStream([record]));
});

describe("avalanche-web avro", () => {
  it("cat prints each record as Avro JSON: unions named, 64-bit integers exact, non-finite doubles as strings", () => {
    const { status, stdout, stderr } = cli(["avro", "cat", file]);
    expect(stderr).toBe("");
    expect(status).toBe(0);
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(RECORDS.length);
    expect(lines[0]).toBe(
      '{"channel": "altitude", "timestamps": [1757500000000000000, 1757500100000000000], "values": [{"double": 1250.5}, {"double": "NaN"}], "tags": {"vehicle_id": "sn-001"}}',
    );
    expect(lines[1]).toContain('[{"double": "Infinity"}, {"double": "-Infinity"}, {"double": -0.0}]');
    expect(lines[2]).toBe(
      '{"channel": "count", "timestamps": [9223372036854775807], "values": [{"long": -9223372036854775808}], "tags": {}}',
    );
    expect(lines[4]).toContain('{"io.nominal.ingest.DoubleArray": {"items": [1, 2, 3]}}');
    expect(lines[5]).toContain('{"io.nominal.ingest.StringArray": {"items": ["x", "", "z"]}}');
    expect(lines[6]).toContain('{"io.nominal.ingest.JsonStruct": {"json": "{\\"k\\":[1,null,\\"s\\"]}"}}');
  });

  it("write reads cat's output back into the same records (every codec)", async () => {
    const printed = cli(["avro", "cat", file]).stdout;
    for (const codec of ["null", "deflate", "snappy"]) {
      const out = join(dir, `rewritten-${codec}.avro`);
      const { status, stderr } = cli(["avro", "write", out, "--codec", codec], printed);
      expect(stderr).toBe("");
      expect(status).toBe(0);
      expect(cli(["avro", "cat", out]).stdout).toBe(printed);
      expect((await readAvroStream(new Uint8Array(await readFile(out)))).map((r) => r.channel)).toEqual(
        RECORDS.map((r) => r.channel),
      );
    }
  });

  it("write keeps strings that look like numbers or JSON exactly", async () => {
    const printed = cli(["avro", "cat", tricky]).stdout;
    const out = join(dir, "tricky-again.avro");
    expect(cli(["avro", "write", out], printed).status).toBe(0);
    expect(await readAvroStream(new Uint8Array(await readFile(out)))).toEqual([
      {
        channel: "#engine, 12",
        timestamps: BigInt64Array.of(-5n),
        values: { kind: "string", values: ["[1, 2], 3"] },
        tags: { "k:1": "-7" },
      },
    ]);
  });

  it("info names the schema variant, codec, blocks, records and points per channel", () => {
    const { stdout, status } = cli(["avro", "info", file]);
    expect(status).toBe(0);
    expect(stdout).toContain("schema: seed");
    expect(stdout).toContain("codec: snappy");
    expect(stdout).toContain(`blocks: ${Math.ceil(RECORDS.length / 4)}`);
    expect(stdout).toContain(`records: ${RECORDS.length}`);
    expect(stdout).toContain("  altitude: 2");
  });

  it("convert writes a Parquet file that native DuckDB reads", async () => {
    const out = join(dir, "flight.parquet");
    const { status, stderr } = cli(["avro", "convert", file, out]);
    expect(stderr).toBe("");
    expect(status).toBe(0);
    const db = await DuckDBInstance.create(":memory:", {
      autoinstall_known_extensions: "false",
      autoload_known_extensions: "false",
    });
    const conn = await db.connect();
    const reader = await conn.runAndReadAll(
      `SELECT channel, count(*)::INTEGER AS n FROM read_parquet('${out}') GROUP BY channel ORDER BY channel`,
    );
    const rows = reader.getRowObjects();
    conn.closeSync();
    db.closeSync();
    expect(rows.find((r) => r.channel === "altitude")).toEqual({ channel: "altitude", n: 2 });
    expect(rows.reduce((a, r) => a + (r.n as number), 0)).toBe(
      RECORDS.reduce((a, r) => a + r.timestamps.length, 0),
    );
  });

  it("a bad file: exit code 1 and one line on stderr naming the problem and the offset, no stack trace", async () => {
    const bad = join(dir, "bad.avro");
    const bytes = await readFile(file);
    await writeFile(bad, bytes.subarray(0, bytes.length - 10));
    for (const args of [
      ["avro", "cat", bad],
      ["avro", "info", bad],
    ]) {
      const { status, stderr } = cli(args);
      expect(status).toBe(1);
      expect(stderr.trim().split("\n")).toHaveLength(1);
      expect(stderr).toMatch(/^avalanche-web: truncated file: an incomplete block at byte \d+/);
    }
    const badJson = cli(["avro", "write", join(dir, "x.avro")], '{"channel": 1}\n');
    expect(badJson.status).toBe(1);
    expect(badJson.stderr).toMatch(/line 1: channel is not a string/);
  });
});

describe("avalanche-web: help, version, exit codes", () => {
  const HELP_LINES = [
    "avalanche-web avro cat FILE",
    "avalanche-web --version",
    "exit codes:",
    "2  wrong arguments",
  ];

  it("--help and -h print the help on stdout with exit code 0, naming the exit codes", () => {
    for (const flag of ["--help", "-h"]) {
      const { status, stdout, stderr } = cli([flag]);
      expect(stderr).toBe("");
      expect(status).toBe(0);
      for (const line of HELP_LINES) expect(stdout).toContain(line);
    }
  });

  it("--version and -v print the package's version on stdout with exit code 0", async () => {
    const pkg = JSON.parse(await readFile(join(import.meta.dirname, "..", "..", "package.json"), "utf8"));
    for (const flag of ["--version", "-v"]) {
      const { status, stdout, stderr } = cli([flag]);
      expect(stderr).toBe("");
      expect(status).toBe(0);
      expect(stdout).toBe(`${pkg.version}\n`);
    }
  });

  it("avro --help (and --help after an avro command) prints the avro help, exit code 0", () => {
    for (const args of [
      ["avro", "--help"],
      ["avro", "-h"],
      ["avro", "cat", "--help"],
    ]) {
      const { status, stdout, stderr } = cli(args);
      expect(stderr).toBe("");
      expect(status).toBe(0);
      expect(stdout).toContain("avalanche-web avro write OUT.avro [--codec null|deflate|snappy]");
      expect(stdout).toContain("exit codes:");
    }
  });

  it("wrong arguments: what is wrong and the usage on stderr, nothing on stdout, exit code 2", () => {
    const cases: [string[], string][] = [
      [[], "avalanche-web: which command?"],
      [["bogus"], "avalanche-web: unknown command bogus"],
      [["avro", "head", file], "avalanche-web: avro head: unknown command head"],
      [["avro", "cat", file, file], "avalanche-web: avro cat: expects FILE, got 2 argument(s)"],
      [["avro", "info", "--verbose", file], "avalanche-web: avro info: unknown option --verbose"],
      [
        ["avro", "write", join(dir, "w.avro"), "--codec", "zstandard"],
        "(zstandard files are read, not written)",
      ],
    ];
    for (const [args, message] of cases) {
      const { status, stdout, stderr } = cli(args, "");
      expect(stdout, args.join(" ")).toBe("");
      expect(status, args.join(" ")).toBe(2);
      expect(stderr.split("\n")[0], args.join(" ")).toContain(message);
      expect(stderr, args.join(" ")).toContain("usage:");
    }
  }, 120_000); // six processes

  it("a missing input file: one line naming it, exit code 1", () => {
    const nope = join(dir, "nope.avro");
    for (const command of ["cat", "info"]) {
      const { status, stdout, stderr } = cli(["avro", command, nope]);
      expect(status).toBe(1);
      expect(stdout).toBe("");
      expect(stderr).toBe(`avalanche-web: reading ${nope}: no such file\n`);
    }
    const convert = cli(["avro", "convert", nope, join(dir, "out.parquet")]);
    expect(convert.status).toBe(1);
    expect(convert.stderr).toBe(`avalanche-web: reading ${nope}: no such file\n`);
  });

  it("an output in a folder that does not exist: one line naming it, exit code 1", () => {
    const out = join(dir, "no-such-folder", "flight.parquet");
    const { status, stderr } = cli(["avro", "convert", file, out]);
    expect(status).toBe(1);
    expect(stderr).toBe(`avalanche-web: writing ${out}: no such file\n`);
  });

  it("a reader that stops early (| head) ends the command quietly, exit code 0", async () => {
    const big = join(dir, "big.avro");
    const record = (i: number) => ({
      channel: `channel-${i % 7}`,
      timestamps: BigInt64Array.of(BigInt(i)),
      values: { kind: "double" as const, values: Float64Array.of(i / 3) },
      tags: { vehicle_id: "sn-001" },
    });
    // About 2 MB of JSON lines: far more than a pipe holds, so the command is still writing when we go.
    await writeFile(big, await encodeAvroStream(Array.from({ length: 20_000 }, (_, i) => record(i))));
    const child = spawn(process.execPath, [bundle, "avro", "cat", big], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    const first = await new Promise<string>((resolve) =>
      child.stdout.once("data", (c) => resolve(String(c))),
    );
    expect(first).toMatch(/^\{"channel": "channel-0", "timestamps": \[0\]/);
    child.stdout.destroy(); // what `head` does once it has its lines
    expect(await exited).toBe(0);
    expect(stderr).toBe("");
  });
});

it("the CLI module is the package's bin", async () => {
  const pkg = JSON.parse(await readFile(join(import.meta.dirname, "..", "..", "package.json"), "utf8"));
  expect(pkg.bin["avalanche-web"]).toBe("./dist/cli/main.js");
  expect((await readFile(CLI_SOURCE, "utf8")).startsWith("#!/usr/bin/env node\n")).toBe(true);
});
