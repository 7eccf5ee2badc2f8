// The `avalanche-web` command, run as a user would (a separate Node process).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { beforeAll, describe, expect, it } from "vitest";
import { encodeAvroStream, readAvroStream } from "../../src/avro.js";
import { RECORDS } from "../shared/avro-records.js";

const MAIN = join(import.meta.dirname, "..", "..", "src", "cli", "main.ts");
const cli = (args: string[], input?: string) =>
  spawnSync(process.execPath, ["--import", "tsx", MAIN, ...args], {
    encoding: "utf8",
    ...(input === undefined ? {} : { input }),
  });

let dir: string;
let file: string;
let tricky: string;
beforeAll(async () => {
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
    const missing = cli(["avro", "cat", join(dir, "nope.avro")]);
    expect(missing.status).toBe(1);
    expect(missing.stderr.trim().split("\n")).toHaveLength(1);
    const badJson = cli(["avro", "write", join(dir, "x.avro")], '{"channel": 1}\n');
    expect(badJson.status).toBe(1);
    expect(badJson.stderr).toMatch(/line 1: channel is not a string/);
  });
});

it("the CLI module is the package's bin", async () => {
  const pkg = JSON.parse(await readFile(join(import.meta.dirname, "..", "..", "package.json"), "utf8"));
  expect(pkg.bin["avalanche-web"]).toBe("./dist/cli/main.js");
  expect(
    execFileSync(process.execPath, ["--import", "tsx", MAIN, "--help"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    }),
  ).toBe("");
});
