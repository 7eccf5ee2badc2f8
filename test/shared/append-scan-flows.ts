// The documents -> chunks pattern of the seeds as workflows: a source table of documents, appended to
// snapshot by snapshot, consumed by an append_scan stream that writes chunks.
import type * as A from "apache-arrow";
import { z } from "zod";
import * as ava from "../../src/index.js";

export const Library = ava.defineNamespace({
  name: "library",
  tables: {
    documents: ava.table({ schema: z.object({ doc_id: z.string(), text: z.string() }) }),
    chunks: ava.table({ schema: z.object({ doc_id: z.string(), chunk: z.int(), text: z.string() }) }),
  },
});

/** Splits each document into chunks of 4 characters. */
function chunksOf(docs: A.Table): { doc_id: string; chunk: number; text: string }[] {
  const out: { doc_id: string; chunk: number; text: string }[] = [];
  for (const row of docs.toArray()) {
    const text = row.text as string;
    for (let i = 0; i * 4 < text.length; i++)
      out.push({ doc_id: row.doc_id as string, chunk: i, text: text.slice(i * 4, i * 4 + 4) });
  }
  return out;
}

const chunkDocuments = ava.step(
  async function chunk_documents(inj: { documents: A.Table; chunks: ava.Table }) {
    const rows = chunksOf(inj.documents);
    if (rows.length > 0) await inj.chunks.append(rows);
    return { documents: inj.documents.numRows, chunks: rows.length };
  },
  {
    inject: {
      documents: ava.stream(Library.tables.documents, { mode: "append_scan", key: "documents_to_chunks" }),
      chunks: Library.tables.chunks,
    },
  },
);
export const chunking = ava.workflow({ name: "chunking" }, () => chunkDocuments());

/** The same consumer, failing after its append when the run input says so (fault injection). */
const flakyChunks = ava.step(
  async function flaky_chunks(inj: { documents: A.Table; chunks: ava.Table; input: { fail: boolean } }) {
    const rows = chunksOf(inj.documents);
    if (rows.length > 0) await inj.chunks.append(rows);
    if (inj.input.fail) throw new Error("injected fault after appending");
    return inj.documents.numRows;
  },
  {
    inject: {
      documents: ava.stream(Library.tables.documents, { mode: "append_scan", key: "flaky" }),
      chunks: Library.tables.chunks,
      input: ava.runInput(),
    },
  },
);
export const flaky = ava.workflow({ name: "flaky-chunking" }, () => flakyChunks());

/** A consumer that always fails on documents whose text starts with "poison". */
const picky = ava.step(
  async function picky(inj: { documents: A.Table; chunks: ava.Table }) {
    if (inj.documents.toArray().some((r) => (r.text as string).startsWith("poison")))
      throw new Error("poisoned");
    const rows = chunksOf(inj.documents);
    if (rows.length > 0) await inj.chunks.append(rows);
    return inj.documents.numRows;
  },
  {
    inject: {
      documents: ava.stream(Library.tables.documents, { mode: "append_scan", key: "picky", maxAttempts: 3 }),
      chunks: Library.tables.chunks,
    },
  },
);
export const pickyFlow = ava.workflow({ name: "picky" }, () => picky());

/** Drains up to 10 snapshots a run. */
const drain = ava.step(
  async function drain(inj: { documents: A.Table }) {
    return inj.documents.numRows;
  },
  {
    inject: {
      documents: ava.stream(Library.tables.documents, {
        mode: "append_scan",
        key: "drain",
        maxSnapshots: 10,
      }),
    },
  },
);
export const draining = ava.workflow({ name: "draining" }, () => drain());

export { chunksOf };

/** A consumer that holds its snapshot a while before committing, so that concurrent runs overlap. */
const slowChunks = ava.step(
  async function slow_chunks(inj: { documents: A.Table; chunks: ava.Table }) {
    await new Promise((resolve) => setTimeout(resolve, 30));
    const rows = chunksOf(inj.documents);
    if (rows.length > 0) await inj.chunks.append(rows);
    return inj.documents.numRows;
  },
  {
    inject: {
      documents: ava.stream(Library.tables.documents, { mode: "append_scan", key: "racing" }),
      chunks: Library.tables.chunks,
    },
  },
);
export const racing = ava.workflow({ name: "racing" }, () => slowChunks());
