// Writes on the Node FileStore. `whole` ones (Iceberg's metadata JSON and hint): the file appears at once under
// its name — written beside it under a temporary name and linked into place — and write-once still holds.
// Plain ones, of each size and durability (each takes its own way to disk), read back whole and stay write-once.
import { mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { nodeStorage } from "../../src/node.js";

const bytesOf = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) % 251);
/** Byte equality without walking a megabyte through the generic matcher. */
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

it("a whole write appears under its name with its bytes, leaves no temporary file, and stays write-once", async () => {
  const root = await mkdtemp(join(tmpdir(), "ava-whole-"));
  const { files } = nodeStorage({ root, fsync: true });
  // Small and not durable (written synchronously), over 1 MiB (asynchronously), and durable (fsynced).
  const cases = [
    { name: "small.json", size: 10, durable: false },
    { name: "large.json", size: (1 << 20) + 7, durable: false },
    { name: "durable.json", size: 100, durable: true },
  ];
  for (const { name, size, durable } of cases) {
    const bytes = bytesOf(size, 1);
    await files.write(`m/${name}`, bytes, { durable, whole: true });
    expect(same(await files.read(`m/${name}`), bytes)).toBe(true);
    // A second writer of the same name is refused, and the first file is left as it was.
    await expect(files.write(`m/${name}`, bytesOf(size, 2), { durable, whole: true })).rejects.toMatchObject({
      code: "IO_ERROR",
      message: expect.stringContaining(name),
    });
    expect(same(await files.read(`m/${name}`), bytes)).toBe(true);
  }
  expect((await readdir(join(root, "m"))).sort()).toEqual(["durable.json", "large.json", "small.json"]);
  expect((await files.list("m/")).map((f) => f.path).sort()).toEqual([
    "m/durable.json",
    "m/large.json",
    "m/small.json",
  ]);
});

it("a plain write of each size and durability reads back whole and stays write-once", async () => {
  const root = await mkdtemp(join(tmpdir(), "ava-plain-"));
  const { files } = nodeStorage({ root, fsync: true });
  // Small and durable (synchronous steps, fdatasync by RecordSync: a small commit's data file), mid-sized
  // and durable (synchronous steps, the thread pool's fdatasync), small and not durable (synchronous, no
  // fdatasync), over 1 MiB and durable (the thread pool's steps).
  const cases = [
    { name: "small-durable.parquet", size: 3_000, durable: true },
    { name: "mid-durable.parquet", size: 200_000, durable: true },
    { name: "small.json", size: 10, durable: false },
    { name: "large-durable.parquet", size: (1 << 20) + 7, durable: true },
  ];
  for (const { name, size, durable } of cases) {
    const bytes = bytesOf(size, 3);
    await files.write(`d/${name}`, bytes, { durable });
    expect(same(await files.read(`d/${name}`), bytes)).toBe(true);
    await expect(files.write(`d/${name}`, bytesOf(size, 4), { durable })).rejects.toMatchObject({
      code: "IO_ERROR",
      message: expect.stringContaining(name),
    });
    expect(same(await files.read(`d/${name}`), bytes)).toBe(true);
  }
  expect((await readdir(join(root, "d"))).sort()).toEqual(cases.map((c) => c.name).sort());
});
