// Interop with independent implementations from Debian: files written by Apache Avro (Python) — every
// codec we read, every schema variant, many blocks — read exactly by ours; files written by ours read
// exactly by Apache Avro (Python) and by avrocat (Apache Avro C). `.ci/run` installs them.
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createWriter, encodeAvroStream, memorySink, readAvroStream } from "../../src/avro.js";
import { interchange, legacyCompatible } from "../fixtures/avro/interchange.js";
import { RECORDS } from "../shared/avro-records.js";

const PYTHON = "/usr/bin/python3";
const SCRIPT = join(import.meta.dirname, "fixtures", "avro_interop.py");

let dir: string;
beforeAll(async () => {
  // Each tool checked on its own terms: Python must import the modules; avrocat must be on the PATH
  // (its --help exits 1 even when installed, so its exit code says nothing).
  const present = (cmd: string, args: string[]) => {
    try {
      execFileSync(cmd, args, { stdio: "pipe" });
      return true;
    } catch {
      return false;
    }
  };
  if (
    !present(PYTHON, ["-c", "import avro.datafile, snappy, zstandard"]) ||
    !present("sh", ["-c", "command -v avrocat"])
  ) {
    throw new Error(
      "interop tests need Debian's python3-avro, python3-snappy, python3-zstandard and avro-bin: apt-get install python3-avro python3-snappy python3-zstandard avro-bin",
    );
  }
  dir = await mkdtemp(join(tmpdir(), "ava-avro-"));
});

describe("Avro interop with Apache Avro", () => {
  for (const codec of ["null", "deflate", "snappy", "zstandard"] as const) {
    for (const variant of ["seed", "rust", "legacy"] as const) {
      it(`reads exactly what Apache Avro Python wrote (${codec}, ${variant} schema, many blocks)`, async () => {
        const records = Array.from({ length: 30 }, (_, i) => RECORDS[i % RECORDS.length]!).filter(
          (r) => variant !== "legacy" || legacyCompatible(r),
        );
        const expected = records.map(interchange);
        const path = join(dir, `py-${codec}-${variant}.avro`);
        execFileSync(PYTHON, [SCRIPT, "write", path, codec, variant, "4"], {
          input: JSON.stringify(expected),
        });
        const ours = await readAvroStream(new Uint8Array(await readFile(path)));
        expect(ours.map(interchange)).toEqual(expected);
      });
    }
  }

  // zstandard is read, not written
  for (const codec of ["null", "deflate", "snappy"] as const) {
    it(`Apache Avro Python and avrocat read exactly what we wrote (${codec})`, async () => {
      const records = Array.from({ length: 25 }, (_, i) => RECORDS[i % RECORDS.length]!);
      const path = join(dir, `ours-${codec}.avro`);
      await writeFile(path, await encodeAvroStream(records, { codec, recordsPerBlock: 4 }));
      const py = JSON.parse(execFileSync(PYTHON, [SCRIPT, "read", path], { encoding: "utf8" }));
      expect(py.codec).toBe(codec);
      expect(py.records).toEqual(records.map(interchange));
    });

    it(`avrocat (Apache Avro C) reads what we wrote (${codec})`, async () => {
      // avrocat's JSON printer cannot print NaN or ±Infinity (it drops such records), so only finite doubles here.
      const finite = RECORDS.filter((r) =>
        interchange(r).values.every(
          ([, v]) => ![v].flat().some((x) => typeof x === "string" && /NaN|Infinity/.test(x)),
        ),
      );
      const records = Array.from({ length: 20 }, (_, i) => finite[i % finite.length]!);
      const path = join(dir, `ours-avrocat-${codec}.avro`);
      await writeFile(path, await encodeAvroStream(records, { codec, recordsPerBlock: 3 }));
      const lines = execFileSync("avrocat", [path], { encoding: "utf8" }).trim().split("\n");
      expect(lines).toHaveLength(records.length);
      lines.forEach((line, i) => {
        const printed = JSON.parse(line) as {
          channel: string;
          timestamps: number[];
          values: unknown[];
          tags: Record<string, string>;
        };
        const r = records[i]!;
        expect(printed.channel).toBe(r.channel);
        expect(printed.tags).toEqual(r.tags);
        expect(printed.values).toHaveLength(r.timestamps.length);
        if (r.values.kind === "double")
          expect(printed.values).toEqual(Array.from(r.values.values, (v) => ({ double: v })));
      });
    });
  }

  it('Apache Avro Python reads createWriter\'s snappy files in both modes; "small" is the smaller on epoch-ns telemetry', async () => {
    const bytes: Record<string, Uint8Array> = {};
    for (const snappy of ["fast", "small"] as const) {
      const sink = memorySink();
      const w = createWriter(sink, { snappy });
      // Epoch-ns timestamps 1 ms apart: short matches every few bytes, which only "small" takes.
      const ts = BigInt64Array.from(
        { length: 20_000 },
        (_, i) => 1_757_500_000_000_000_000n + BigInt(i) * 1_000_000n,
      );
      for (let c = 0; c < 3; c++)
        w.enqueueBatch(
          `ch${c}`,
          ts,
          Float64Array.from({ length: ts.length }, (_, i) => Math.round(Math.sin(i / 100 + c) * 1e4) / 10),
        );
      await w.close();
      bytes[snappy] = sink.bytes();
      const path = join(dir, `writer-snappy-${snappy}.avro`);
      await writeFile(path, bytes[snappy]);
      const ours = await readAvroStream(bytes[snappy]);
      expect(ours.map((r) => r.timestamps.length)).toEqual([20_000, 20_000, 20_000]);
      expect(ours[2]!.timestamps).toEqual(ts);
      const py = JSON.parse(
        execFileSync(PYTHON, [SCRIPT, "read", path], { encoding: "utf8", maxBuffer: 256 * 2 ** 20 }),
      );
      expect(py.codec).toBe("snappy");
      expect(py.records).toEqual(ours.map(interchange));
    }
    expect(bytes.small!.length).toBeLessThan(bytes.fast!.length * 0.95);
  });
});
