// The README's "Live streams and the ingest endpoint" examples, verbatim between the region markers
// (test/node/readme.test.ts compares and runs them, in a fresh folder); the checks after them say what the
// README promises.
import assert from "node:assert/strict";

// #region server
import { createServer } from "node:http";
import * as ava from "../../src/node.js";

const Telemetry = ava.defineNamespace({
  name: "telemetry",
  tables: { points: ava.table({ schema: ava.avro.avroStreamArrowSchema }) },
});
const ns = await Telemetry.open({ storage: ava.nodeStorage({ root: ".avalanche" }) });
await ns.push();

// (Request) => Promise<Response>: also a Deno/Bun handler, or a service worker's fetch event answer
const ingest = ava.ingestHandler(ns.points, { auth: "dev-token", maxBytes: 16 * 1024 * 1024 });
const server = createServer(ava.toNodeListener(ingest)).listen(8787, "127.0.0.1");
// #endregion server

await new Promise((resolve) => server.once("listening", resolve));

// #region client
const live = ava.avro.createLiveStream({ url: "http://127.0.0.1:8787/ingest", token: "dev-token" });
live.enqueue("altitude", new Date(), 1250.5, { vehicle_id: "sn-001" });
live.enqueueBatch("airspeed", [1_757_500_000_000_000_000n, 1_757_500_100_000_000_000n], [42.0, 42.5]);
await live.close(); // resolves when every batch is acknowledged
console.log(live.status()); // { batchesSent: 1, pointsSent: 3, retries: 0, … }
// #endregion client

assert.equal(live.status().pointsSent, 3);
const history = await ns.points.history();
assert.equal(history.length, 1);
assert.equal(typeof history[0]!.idempotencyKey, "string"); // the batch id, committed with the rows
assert.equal((await ns.points.scan().toArrow()).numRows, 3);

// A re-sent batch (its acknowledgement lost) is acknowledged without a second append.
const sink = ava.avro.memorySink();
const w = ava.avro.createWriter(sink);
w.enqueue("altitude", 1n, 1);
await w.close();
const send = () =>
  fetch("http://127.0.0.1:8787/ingest", {
    method: "POST",
    body: sink.bytes() as Uint8Array<ArrayBuffer>,
    headers: { authorization: "Bearer dev-token", "idempotency-key": "batch-42" },
  }).then((r) => r.json());
assert.equal((await send()).duplicate, false);
assert.equal((await send()).duplicate, true);
assert.equal((await ns.points.scan().toArrow()).numRows, 4);
assert.equal((await fetch("http://127.0.0.1:8787/ingest", { method: "POST" })).status, 401);

server.close();
console.log("ingest: ok");
