// `rewrite` on the Node FileStore (Iceberg's version hint): a file of the new bytes' length is written over
// in place — the same inode, so none is freed or allocated per metadata version — and anything else is
// deleted and written anew; a symbolic link in the file's place is never written through.
import { mkdtemp, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { nodeStorage } from "../../src/node.js";

const text = (s: string) => new TextEncoder().encode(s);

it("rewrites a file of the same length in place, replaces one of another length, and creates a missing one", async () => {
  const root = await mkdtemp(join(tmpdir(), "ava-rewrite-"));
  const { files } = nodeStorage({ root, fsync: false });
  const full = join(root, "t/metadata/version-hint.text");

  // Missing (and its folder not made yet): created.
  await files.rewrite!("t/metadata/version-hint.text", text("8"));
  expect(await readFile(full, "utf8")).toBe("8");
  const first = (await stat(full)).ino;

  // The same length: the same file, its bytes replaced.
  await files.rewrite!("t/metadata/version-hint.text", text("9"));
  expect(await readFile(full, "utf8")).toBe("9");
  expect((await stat(full)).ino).toBe(first);

  // Another length, longer or shorter: replaced whole, no byte of the old value left.
  await files.rewrite!("t/metadata/version-hint.text", text("10"));
  expect(await readFile(full, "utf8")).toBe("10");
  await files.rewrite!("t/metadata/version-hint.text", text("7"));
  expect(await readFile(full, "utf8")).toBe("7");
  await files.rewrite!("t/metadata/version-hint.text", text("6"));
  expect(await readFile(full, "utf8")).toBe("6");

  // Paths are checked as every other path is.
  await expect(files.rewrite!("../outside", text("1"))).rejects.toMatchObject({ code: "INVALID_NAME" });
});

it.skipIf(process.platform === "win32")(
  "never writes through a symbolic link in the file's place",
  async () => {
    const root = await mkdtemp(join(tmpdir(), "ava-rewrite-"));
    const outside = join(await mkdtemp(join(tmpdir(), "ava-rewrite-outside-")), "target");
    await writeFile(outside, "1");
    const { files } = nodeStorage({ root, fsync: false });
    await files.write("m/other", text("x")); // the folder is known to the store, as an exporting one is
    await symlink(outside, join(root, "m/hint"));
    await files.rewrite!("m/hint", text("2"));
    expect(await readFile(outside, "utf8")).toBe("1");
    expect(await readFile(join(root, "m/hint"), "utf8")).toBe("2");
  },
);
