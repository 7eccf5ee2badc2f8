import { z } from "zod";
import * as ava from "../src/node.js";
const Docs = ava.defineNamespace({ name: "documents", tables: {
  documents: ava.table({ schema: z.object({ doc_id: z.string(), n: z.int(), tags: z.array(z.string()), meta: ava.json(), at: z.date().optional() }) }),
}});
const storage = ava.nodeStorage({ root: "/tmp/smoke-" + Date.now() });
const ns = await Docs.open({ storage });
await ns.push(); await ns.push();
const r1 = await ns.documents.append([{ doc_id: "a", n: 1, tags: ["x"], meta: { k: 1 }, at: new Date() }, { doc_id: "b", n: 2, tags: [], meta: [1, 2] }]);
console.log(r1.snapshotId, r1.rowCount, r1.toModels());
const r2 = await ns.documents.append({ doc_id: "c", n: 3, tags: ["z"], meta: null });
console.log(r2.one());
console.log((await ns.documents.read()).numRows, (await ns.documents.history()).map(s => [s.sequenceNumber, s.totalRows]));
console.log(await ns.documents.scan({ columns: ["doc_id"], filter: (w) => w.gte("n", 2) }).toObjects());
const plan = await ns.documents.scan({ filter: (w) => w.eq("doc_id", "c") }).plan();
console.log("plan", plan.files.length, plan.prunedFiles.length);
console.log((await ns.documents.read({ snapshotId: r1.snapshotId })).numRows);
try { await ns.documents.append([{ doc_id: "d", n: 1.5, tags: [], meta: 1 }]); } catch (e) { console.log((e as ava.AvaError).code, (e as Error).message); }
console.log(await ns.documents.readModels());
console.log(JSON.stringify(r1.toObjects()[0], (k, v) => typeof v === "bigint" ? String(v) : v));
