// The stream pattern of the seeds: documents arrive in a table, snapshot by snapshot; a workflow whose
// chunking node reads them through an append_scan stream writes chunks, exactly once — its progress
// commits with its chunks. Run it twice: the second run finds nothing new until more documents arrive.
// `npx tsx examples/stream-pattern.ts` (storage under ./.avalanche, or AVALANCHE_ROOT).
import type * as A from "apache-arrow";
import { z } from "zod";
import * as ava from "../src/node.js";

const Library = ava.defineNamespace({
  name: "library",
  tables: {
    documents: ava.table({ schema: z.object({ doc_id: z.string(), text: z.string() }) }),
    chunks: ava.table({ schema: z.object({ doc_id: z.string(), chunk: z.int(), text: z.string() }) }),
  },
});

const chunkDocuments = ava.step(
  async function chunk_documents(inj: { documents: A.Table; chunks: ava.Table }) {
    const chunks = inj.documents.toArray().flatMap((doc) => {
      const words = String(doc.text).split(" ");
      return Array.from({ length: Math.ceil(words.length / 3) }, (_, i) => ({
        doc_id: String(doc.doc_id),
        chunk: i,
        text: words.slice(i * 3, i * 3 + 3).join(" "),
      }));
    });
    if (chunks.length > 0) await inj.chunks.append(chunks);
    return { documents: inj.documents.numRows, chunks: chunks.length };
  },
  {
    inject: {
      documents: ava.stream(Library.tables.documents, { mode: "append_scan", key: "documents_to_chunks" }),
      chunks: Library.tables.chunks,
    },
  },
);

export const chunking = ava.workflow({ name: "chunking" }, () => chunkDocuments());

const storage = ava.nodeStorage({ root: process.env.AVALANCHE_ROOT ?? ".avalanche" });
const ns = await Library.open({ storage });
await ns.push();
const stamp = Date.now();
for (let i = 0; i < 3; i++)
  await ns.documents.append([
    { doc_id: `doc-${stamp}-${i}`, text: `the quick brown fox number ${i} jumps over the lazy dog` },
  ]);
for (let run = 0; run < 4; run++) {
  const { runId, value } = await chunking.run({ storage }).result();
  console.log(`run ${runId}: ${JSON.stringify(value)}`);
}
const state = await ava.streamState(storage, Library.tables.documents, "documents_to_chunks");
console.log(
  `stream documents_to_chunks at snapshot ${state.position}; chunks: ${(await ns.chunks.read()).numRows}`,
);
