// The README's "Command line and server" example, verbatim between the region markers (test/node/readme.test.ts
// compares and runs it, in a fresh folder); the checks after it say what the README promises.
import assert from "node:assert/strict";

// #region schedule
import { z } from "zod";
import * as ava from "../../src/node.js";

const Ops = ava.defineNamespace({
  name: "ops",
  tables: { heartbeats: ava.table({ schema: z.object({ note: z.string() }) }) },
});

const beat = ava.step(
  async function beat(inj: { heartbeats: ava.Table; ctx: ava.RunContext; input: { note?: string } }) {
    const tick = inj.ctx.metadata.scheduledTick; // set on scheduled runs; webhooks pass an input instead
    await inj.heartbeats.append([{ note: inj.input?.note ?? `tick ${tick}` }]);
  },
  { inject: { heartbeats: Ops.tables.heartbeats, ctx: ava.runContext(), input: ava.runInput() } },
);

// Runs every 5 minutes under `avalanche-web serve --module flows.ts`, once per tick however many
// servers share the storage; ticks missed while no server ran: only the latest runs.
export const heartbeat = ava.workflow({ name: "heartbeat", schedule: "*/5 * * * *", catchUp: "latest" }, () =>
  beat(),
);

// The same server in code: a webhook starts a run with the JSON body as its input.
const storage = ava.nodeStorage({ root: ".avalanche" });
await (await Ops.open({ storage })).push();
const server = await ava.startServer({
  storage,
  port: 0,
  token: "a-long-random-token",
  workflows: [heartbeat],
});
const started = await fetch(`${server.url}/hooks/heartbeat`, {
  method: "POST",
  headers: { authorization: "Bearer a-long-random-token", "content-type": "application/json" },
  body: JSON.stringify({ note: "from a webhook" }),
}).then((r) => r.json()); // { runId, status: "running", url: "/runs/<runId>" }
const run = await fetch(`${server.url}/runs/${started.runId}?wait=10000`, {
  headers: { authorization: "Bearer a-long-random-token" },
}).then((r) => r.json()); // { status: "success", nodes: {...}, ... }
await server.close(); // drains in-flight requests and runs
// #endregion schedule

assert.equal(run.status, "success");
const ns = await Ops.open({ storage });
assert.deepEqual(
  (await ns.heartbeats.read()).toArray().map((r) => r.note),
  ["from a webhook"],
);
assert.equal(heartbeat.schedule?.cron.expression, "*/5 * * * *");
console.log("operator: ok");
