// Every TypeScript example in README.md is code that runs. A ```ts block is preceded by a marker naming an
// example file and a region in it, `<!-- example: examples/readme/tables.ts#readme -->`; the region (between
// `// #region readme` and `// #endregion readme`) must be the block verbatim, except that its imports of
// ../src entries are spelled as the package's (`avalanche-web/node`, …). Each example file then runs in a
// fresh folder, as a user would run it, and checks what the README promises after its regions, printing a
// last line that ends in ": ok". To cover a new section: mark its blocks, write the file, and take the
// section out of UNMARKED_SECTIONS.
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const REPO = join(import.meta.dirname, "..", "..");
const TSX = import.meta.resolve("tsx");

/** Sections whose blocks are not marked yet. */
const UNMARKED_SECTIONS = new Set<string>();

/** The package entry a ../src import stands for. */
const ENTRIES: Record<string, string> = {
  "src/index": "avalanche-web",
  "src/node": "avalanche-web/node",
  "src/avro": "avalanche-web/avro",
  "src/sql": "avalanche-web/sql",
  "src/sql-node": "avalanche-web/sql",
};

interface Block {
  section: string;
  line: number;
  code: string;
  example?: { file: string; region: string };
}

function readmeBlocks(readme: string): Block[] {
  const lines = readme.split("\n");
  const blocks: Block[] = [];
  let section = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith("## ")) section = line.slice(3).trim();
    if (!/^```(ts|typescript)\s*$/.test(line)) continue;
    const end = lines.indexOf("```", i + 1);
    const marker = /^<!-- example: (\S+?)#(\S+) -->$/.exec(lines[i - 1] ?? "");
    blocks.push({
      section,
      line: i + 1,
      code: lines.slice(i + 1, end).join("\n"),
      ...(marker ? { example: { file: marker[1]!, region: marker[2]! } } : {}),
    });
    i = end;
  }
  return blocks;
}

/** A region of an example file, its ../src imports spelled as the package's. */
function region(source: string, file: string, name: string): string {
  const lines = source.split("\n");
  const start = lines.findIndex((l) => l.trim() === `// #region ${name}`);
  const end = lines.findIndex((l, i) => i > start && l.trim() === `// #endregion ${name}`);
  if (start < 0 || end < 0) throw new Error(`${file} has no region ${name}`);
  return lines
    .slice(start + 1, end)
    .join("\n")
    .replace(/(from |import\()"(\.{1,2}\/[^"]+)"/g, (whole, head: string, spec: string) => {
      const target = relative(REPO, resolve(dirname(join(REPO, file)), spec)).replace(/\.(js|ts)$/, "");
      const entry = ENTRIES[target];
      return entry ? `${head}"${entry}"` : whole;
    });
}

const blocks = readmeBlocks(await readFile(join(REPO, "README.md"), "utf8"));
const examples = [...new Set(blocks.flatMap((b) => (b.example ? [b.example.file] : [])))];
const sources = new Map(
  await Promise.all(examples.map(async (f) => [f, await readFile(join(REPO, f), "utf8")] as const)),
);
/**
 * The files run: those no other example names by a relative path (an import, or a worker entry's URL).
 * A module such as flow.ts, or a worker entry, runs through the example that uses it.
 */
const entries = examples.filter(
  (file) =>
    !examples.some((other) => {
      if (other === file) return false;
      const mentioned = [...sources.get(other)!.matchAll(/"(\.{1,2}\/[^"]+)"/g)].map((m) =>
        relative(REPO, resolve(dirname(join(REPO, other)), m[1]!)).replace(/\.(js|ts)$/, ""),
      );
      return mentioned.includes(file.replace(/\.ts$/, ""));
    }),
);

describe("README.md", () => {
  it("has TypeScript examples, each marked with the example file that holds it", () => {
    expect(examples.length).toBeGreaterThanOrEqual(3);
    const unmarked = blocks.filter((b) => !b.example && !UNMARKED_SECTIONS.has(b.section));
    expect(unmarked.map((b) => `README.md:${b.line} (${b.section})`)).toEqual([]);
  });

  for (const block of blocks.filter((b) => b.example)) {
    const { file, region: name } = block.example!;
    it(`README.md:${block.line} is ${file}#${name} verbatim`, async () => {
      const source = await readFile(join(REPO, file), "utf8");
      expect(block.code).toBe(region(source, file, name));
    });
  }

  it("runs every example: each module or worker entry through the example that uses it", () => {
    expect(entries.length).toBeGreaterThanOrEqual(4);
    expect(entries).not.toContain("examples/readme/workflows/flow.worker.ts");
  });

  for (const file of entries) {
    it(`${file} runs in a fresh folder`, async () => {
      const cwd = await mkdtemp(join(tmpdir(), "ava-readme-"));
      try {
        const out = execFileSync(process.execPath, ["--import", TSX, join(REPO, file)], {
          cwd,
          encoding: "utf8",
          stdio: ["ignore", "pipe", "pipe"],
        });
        expect(out).toMatch(/: ok\n$/); // the example's own checks passed
      } finally {
        await rm(cwd, { recursive: true, force: true });
      }
    });
  }
});
