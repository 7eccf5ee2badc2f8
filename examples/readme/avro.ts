// The README's "Avro stream telemetry files" examples, verbatim between the region markers
// (test/node/readme.test.ts compares and runs them, in a fresh folder); the checks after them say what the
// README promises.
// #region write-read
import { createWriter, memorySink, openAvroStream } from "../../src/avro.js";

const sink = memorySink(); // or streamSink(writable), await opfsFileSink(path), nodeFileSink(path) (avalanche-web/node)
const w = createWriter(sink, { codec: "snappy" }); // null | deflate | snappy
w.enqueue("altitude", new Date(), 1250.5, { vehicle_id: "sn-001" });
w.enqueueBatch("airspeed", [1_757_500_000_000_000_000n, 1_757_500_100_000_000_000n], [42.0, 42.5]);
w.enqueueFromDict(1_757_500_200_000_000_000n, { altitude: 1252.0, fault_code: "E07" });
await w.close();

// reads null, deflate, snappy and zstandard (Apache Avro writes it; we read it, we do not write it)
const file = await openAvroStream(sink.bytes()); // bytes, Blob/File, ReadableStream, nodeFileSource(path)
for await (const record of file.records()) record.values; // { kind: "double", values: Float64Array }, …
// #endregion write-read

// #region ingest
import * as ava from "../../src/node.js";

const Flight = ava.defineNamespace({
  name: "flight",
  tables: { points: ava.table({ schema: ava.avro.avroStreamArrowSchema }) }, // a row per point
});
const ns = await Flight.open({ storage: ava.nodeStorage({ root: ".avalanche" }) });
await ns.push();
await ns.points.appendAvroStream(sink.bytes(), { tags: { site: "hq" }, timestampType: "ns" }); // one snapshot
// #endregion ingest

import assert from "node:assert/strict";

const records = [];
for await (const r of (await openAvroStream(sink.bytes())).records()) records.push(r);
assert.deepEqual(
  records.map((r) => [r.channel, r.timestamps.length]),
  [
    ["altitude", 1],
    ["airspeed", 2],
    ["altitude", 1],
    ["fault_code", 1],
  ],
);
const points = await ns.points.scan({ columns: ["channel", "double", "string", "tags"] }).toObjects();
assert.equal(points.length, 5);
assert.deepEqual(
  points.filter((p) => p.channel === "fault_code").map((p) => [p.string, p.tags]),
  [["E07", { site: "hq" }]],
);
assert.deepEqual((await ns.points.history()).length, 1);
console.log("avro: ok");
