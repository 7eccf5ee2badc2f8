// Golden files: each test/fixtures/avro/*.avro was written by Apache Avro (Python) and sits beside the
// records Apache Avro itself reads from it (*.json). Ours must read exactly those records from every one.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { READ_CODECS, readAvroStream } from "../../src/avro.js";
import { interchange } from "../fixtures/avro/interchange.js";

const DIR = join(import.meta.dirname, "..", "fixtures", "avro");
const files = (await readdir(DIR)).filter((f) => f.endsWith(".avro")).sort();

it("has a golden file for every codec it reads and every schema variant", () => {
  const expected = READ_CODECS.flatMap((codec) =>
    ["legacy", "rust", "seed"].map((variant) => `python-${variant}-${codec}.avro`),
  );
  expect(files).toEqual(expected.sort());
});

it.each(files)("%s reads exactly as Apache Avro reads it", async (name) => {
  const expected = JSON.parse(await readFile(join(DIR, name.replace(/\.avro$/, ".json")), "utf8"));
  const ours = await readAvroStream(new Uint8Array(await readFile(join(DIR, name))));
  expect(ours.map(interchange)).toEqual(expected);
});
