// nodeStorage never touches anything outside its root, whatever path it is handed.
import { mkdir, mkdtemp, readdir, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { nodeStorage } from "../../src/node.js";
import { expectAvaError } from "../shared/fixtures.js";

it("refuses file paths that leave the root, absolute paths and control characters", async () => {
  const parent = await mkdtemp(join(tmpdir(), "ava-paths-"));
  const root = join(parent, "root");
  const { files } = nodeStorage({ root });
  const bad = [
    "../escape.bin",
    "data/../../escape.bin",
    "/tmp/escape.bin",
    "data\\..\\x",
    "a\u0000b",
    "a\nb",
    "",
    ".",
  ];
  for (const path of bad) {
    await expectAvaError(files.write(path, new Uint8Array([1])), "INVALID_NAME", /path/);
    await expectAvaError(files.read(path), "INVALID_NAME");
    await expectAvaError(files.delete(path), "INVALID_NAME");
  }
  expect(await readdir(parent)).toEqual([]); // not even the root was created
  await files.write("data/ok/x.bin", new Uint8Array([7]));
  expect(await readdir(parent)).toEqual(["root"]);
});

it("names a missing file with NOT_FOUND", async () => {
  const root = await mkdtemp(join(tmpdir(), "ava-missing-"));
  const { files } = nodeStorage({ root });
  await expectAvaError(files.read("data/none.bin"), "NOT_FOUND", /data\/none\.bin/);
  await expectAvaError(files.readRange("data/none.bin", 0, 4), "NOT_FOUND", /data\/none\.bin/);
});

it("browserStorage in Node is UNAVAILABLE on first use, naming what it needs", async () => {
  const { browserStorage } = await import("../../src/index.js");
  const storage = browserStorage({ name: "x" }); // constructing touches nothing
  await expectAvaError(storage.catalog.current(), "UNAVAILABLE", /OPFS and IndexedDB/);
  await expectAvaError(storage.files.read("data/x"), "UNAVAILABLE", /OPFS/);
});

it("refuses writes through a symbolic link that leads out of the root", async () => {
  const parent = await mkdtemp(join(tmpdir(), "ava-symlink-"));
  const root = join(parent, "root");
  const outside = join(parent, "outside");
  await mkdir(join(root, "data"), { recursive: true });
  await mkdir(outside);
  await symlink(outside, join(root, "data", "ns"));
  const { files } = nodeStorage({ root });
  await expectAvaError(
    files.write("data/ns/t/x.parquet", new Uint8Array([1])),
    "INVALID_NAME",
    /symbolic link/,
  );
  await expectAvaError(
    files.write("data/ns/x.parquet", new Uint8Array([1])),
    "INVALID_NAME",
    /symbolic link/,
  );
  expect(await readdir(outside)).toEqual([]); // not even a folder was made there
  await files.write("data/other/x.bin", new Uint8Array([7])); // a real folder is fine
});

it("refuses a root that is not a path", () => {
  for (const root of [42, null, "", undefined]) {
    expect(() => nodeStorage({ root } as never)).toThrowError(
      /nodeStorage\(\{ root \}\) needs a folder path/,
    );
  }
  expect(() => nodeStorage(undefined as never)).toThrowError(/root/);
});
