// The README's "Live streaming" example, verbatim between the region markers (test/node/readme.test.ts
// compares and runs it, in a fresh folder). Before it: the receiving end it posts to, a table behind the
// ingest endpoint on node:http; after it, the checks of what the README promises.
import { createServer } from "node:http";
import * as ava from "../../src/node.js";

const Telemetry = ava.defineNamespace({
  name: "telemetry",
  tables: { points: ava.table({ schema: ava.avro.avroStreamArrowSchema }) },
});
const ns = await Telemetry.open({ storage: ava.nodeStorage({ root: ".server" }) });
await ns.push();
const server = createServer(ava.toNodeListener(ava.ingestHandler(ns.points)));
await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/ingest`;

// #region live
import { createLiveStream } from "../../src/avro.js";
import { nodeStorage } from "../../src/node.js"; // in a browser: browserStorage({ name }) from avalanche-web

const live = createLiveStream({
  url, // each batch is POSTed here as one Avro stream file, with its id as Idempotency-Key
  outbox: nodeStorage({ root: ".outbox" }), // every batch is kept here before it is sent
  name: "vehicle-1", // a stream of this name created after a reload or a restart resends what is left
  outboxPolicy: "block", // at the outbox's byte cap (maxOutboxBytes): "block" | "drop-oldest" | "error"
});
live.addEventListener("sent", (e) => (e as CustomEvent).detail.id); // also stored, retry, dropped, full, online…
live.enqueue("altitude", new Date(), 1250.5, { vehicle_id: "sn-001" });
await live.writable(); // backpressure: resolves when enqueue would be taken (it never waits itself)
live.enqueueBatch("airspeed", [1_757_500_000_000_000_000n, 1_757_500_100_000_000_000n], [42.0, 42.5]);
live.status(); // { pointsBuffered, batchesInOutbox, bytesInOutbox, batchesSent, retries, batchesDropped, online, … }
await live.close(); // resolves once every batch is acknowledged
// #endregion live

import assert from "node:assert/strict";

assert.deepEqual((await ns.points.scan({ columns: ["channel"] }).toObjects()).map((p) => p.channel).sort(), [
  "airspeed",
  "airspeed",
  "altitude",
]);
assert.equal(live.status().batchesInOutbox, 0);
assert.equal(live.status().pointsSent, 3);
server.close();
console.log("live: ok");
