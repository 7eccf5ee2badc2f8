// Table declarations and rows shared by the suites.
import * as A from "apache-arrow";
import { z } from "zod";
import * as ava from "../../src/index.js";

export const DocumentSchema = z.object({
  doc_id: z.string(),
  title: z.string(),
  words: z.int(),
  score: z.number().optional(),
  kind: z.enum(["note", "report"]),
  tags: z.array(z.string()),
  author: z.object({ name: z.string(), age: z.int().nullable() }),
  meta: ava.json(),
  created: z.date(),
  size: z.bigint(),
});
export type Document = z.output<typeof DocumentSchema>;

export const telemetrySchema = new A.Schema([
  new A.Field("channel", new A.Utf8(), false),
  new A.Field("ts", new A.Int64(), false),
  new A.Field("value", new A.Float64(), true),
]);

export const Docs = ava.defineNamespace({
  name: "docs",
  tables: {
    documents: ava.table({ schema: DocumentSchema }),
    telemetry: ava.table({ schema: telemetrySchema }),
    plain: ava.table({ schema: z.object({ k: z.string(), v: z.int() }), rowLineage: false }),
  },
});

export function doc(i: number, over: Partial<Document> = {}): Document {
  return {
    doc_id: `doc-${i}`,
    title: `Title ${i}`,
    words: i * 10,
    score: i / 2,
    kind: i % 2 ? "note" : "report",
    tags: [`t${i}`, "all"],
    author: { name: `a${i % 3}`, age: i % 4 === 0 ? null : 30 + i },
    meta: { i, nested: { ok: true } },
    created: new Date(Date.UTC(2024, 0, 1 + i)),
    size: BigInt(i) * 1_000_000_000_000n,
    ...over,
  };
}

export function telemetry(channel: string, from: number, count: number): A.Table {
  return A.tableFromArrays({
    channel: Array.from({ length: count }, () => channel),
    ts: BigInt64Array.from({ length: count }, (_, i) => BigInt(from + i)),
    value: Float64Array.from({ length: count }, (_, i) => (from + i) * 0.5),
  });
}

/** Asserts the promise rejects with an AvaError of `code` whose message matches every pattern. */
export async function expectAvaError(
  p: Promise<unknown> | (() => unknown),
  code: ava.AvaErrorCode,
  ...patterns: RegExp[]
) {
  let error: unknown;
  try {
    await (typeof p === "function" ? p() : p);
  } catch (e) {
    error = e;
  }
  if (!ava.isAvaError(error)) throw new Error(`expected AvaError ${code}, got ${String(error)}`);
  if (error.code !== code) throw new Error(`expected code ${code}, got ${error.code}: ${error.message}`);
  for (const re of patterns) {
    if (!re.test(error.message))
      throw new Error(`message ${JSON.stringify(error.message)} does not match ${re}`);
  }
  return error;
}
