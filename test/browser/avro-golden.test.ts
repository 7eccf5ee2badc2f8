// The golden files of test/node/avro-golden.test.ts, read in Chromium: each test/fixtures/avro/*.avro was
// written by Apache Avro (Python) — whose deflate blocks end with bytes after the DEFLATE stream, which
// Chromium's DecompressionStream refuses on its own — and sits beside the records Apache Avro reads from it.
import { expect, it } from "vitest";
import { READ_CODECS, readAvroStream } from "../../src/avro.js";
import { interchange } from "../fixtures/avro/interchange.js";

const urls = import.meta.glob("../fixtures/avro/*.avro", {
  query: "?url",
  import: "default",
  eager: true,
}) as Record<string, string>;
const expected = import.meta.glob("../fixtures/avro/*.json", { import: "default", eager: true }) as Record<
  string,
  unknown
>;
const names = Object.keys(urls).sort();

it("has every golden file in the browser too", () => {
  const all = READ_CODECS.flatMap((codec) =>
    ["legacy", "rust", "seed"].map((variant) => `../fixtures/avro/python-${variant}-${codec}.avro`),
  );
  expect(names).toEqual(all.sort());
});

it.each(names)("%s reads exactly as Apache Avro reads it, in Chromium", async (name) => {
  const response = await fetch(urls[name]!);
  expect(response.ok).toBe(true);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const ours = await readAvroStream(bytes);
  expect(ours.map(interchange)).toEqual(expected[name.replace(/\.avro$/, ".json")]);
  // and fed as a stream, as a fetch body is
  const streamed = await readAvroStream((await fetch(urls[name]!)).body!);
  expect(streamed.map(interchange)).toEqual(expected[name.replace(/\.avro$/, ".json")]);
});
