import { mkdtemp, readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { avro, nodeFileSink, nodeFileSource } from "../../src/node.js";
import { expectAvaError } from "../shared/fixtures.js";

it("writes an Avro stream file on disk and streams it back in chunks", async () => {
  const path = join(await mkdtemp(join(tmpdir(), "ava-avro-file-")), "flight.avro");
  const w = avro.createWriter(nodeFileSink(path), { codec: "deflate", maxBatchPoints: 1000 });
  for (let i = 0; i < 5000; i++) w.enqueue(`ch${i % 7}`, BigInt(i), i / 3, { unit: "m" });
  await w.close();
  expect((await stat(path)).size).toBeGreaterThan(1000);
  const records = await avro.readAvroStream(nodeFileSource(path));
  expect(records.reduce((n, r) => n + r.timestamps.length, 0)).toBe(5000);
  expect(await avro.readAvroStream(new Uint8Array(await readFile(path)))).toEqual(records);
});

it("an empty writer leaves a header-only file; a missing file is NOT_FOUND naming it", async () => {
  const dir = await mkdtemp(join(tmpdir(), "ava-avro-file-"));
  await avro.createWriter(nodeFileSink(join(dir, "empty.avro"))).close();
  expect(await avro.readAvroStream(nodeFileSource(join(dir, "empty.avro")))).toEqual([]);
  await expectAvaError(
    avro.readAvroStream(nodeFileSource(join(dir, "nope.avro"))),
    "NOT_FOUND",
    /nope\.avro/,
  );
});
