// `avalanche-web serve` over real HTTP on 127.0.0.1: REST reads, scans as Arrow and JSON, SQL, webhooks
// followed to their result, auth, limits, schedules claimed once across two servers on one root (with a
// manual clock), catch-up after a restart, and a graceful shutdown mid-request.
import { spawn } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as A from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as ava from "../../src/node.js";
import { bundledCli } from "../support/cli-bundle.js";
import { broken, ingest, minutely, Ops, sleepy } from "./fixtures/operator-flows.js";

const TOKEN = "s3cret-token-0123456789";
let root: string;
let first: string;
let server: ava.RunningServer;
let secured: ava.RunningServer;

async function call(
  base: string,
  path: string,
  init: {
    method?: string;
    body?: unknown;
    token?: string;
    headers?: Record<string, string>;
    raw?: string;
  } = {},
) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  let body: string | null = init.raw ?? null;
  if (init.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(init.body);
  }
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? (body === null ? "GET" : "POST"),
    headers,
    body,
  });
  const type = res.headers.get("content-type") ?? "";
  const payload = type.startsWith("application/json")
    ? await res.json()
    : new Uint8Array(await res.arrayBuffer());
  // biome-ignore lint/suspicious/noExplicitAny: answers of every shape, checked by the tests
  return { status: res.status, type, body: payload as any };
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "ava-serve-"));
  const storage = ava.nodeStorage({ root });
  const ns = await Ops.open({ storage });
  await ns.push();
  first = (await ns.readings.append([{ sensor: "a", value: 1.5, n: 1 }])).snapshotId;
  await ns.readings.append([
    { sensor: "b", value: 2.5, n: 2 },
    { sensor: "c", value: -3, n: 3 },
  ]);
  server = await ava.startServer({ storage, port: 0, workflows: [ingest, broken, sleepy] });
  secured = await ava.startServer({
    storage: ava.nodeStorage({ root }),
    port: 0,
    token: TOKEN,
    workflows: [ingest, sleepy],
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await secured?.close();
});

describe("serve: tables", () => {
  it("lists namespaces, tables, a table, its schema and history", async () => {
    const base = server.url;
    expect((await call(base, "/namespaces")).body.namespaces[0]).toEqual({
      name: "ops",
      createdMs: expect.any(Number),
      tables: ["readings", "ticks"],
    });
    const tables = (await call(base, "/tables")).body.tables;
    expect(tables.find((t: { name: string }) => t.name === "readings")).toMatchObject({
      namespace: "ops",
      snapshots: 2,
      rows: 3,
      files: 2,
    });
    expect((await call(base, "/tables/ops/readings")).body).toMatchObject({
      rows: 3,
      bytes: expect.any(Number),
    });
    const schema = (await call(base, "/tables/ops/readings/schema")).body;
    expect(schema.columns[0]).toEqual({ name: "sensor", type: "Utf8", nullable: false, provenance: false });
    expect(schema.columns.find((c: { name: string }) => c.name === "_ava_run_id")).toMatchObject({
      provenance: true,
    });
    const history = (await call(base, "/tables/ops/readings/history")).body.snapshots;
    expect(history.map((s: { id: string; addedRows: number }) => [s.id === first, s.addedRows])).toEqual([
      [true, 1],
      [false, 2],
    ]);
  });

  it("scans as JSON or an Arrow IPC stream, with limit, columns, filter and snapshot", async () => {
    const base = server.url;
    const json = await call(base, "/tables/ops/readings/scan?columns=sensor,n&filter=n%20%3E%3D%202&limit=5");
    expect(json.body).toEqual({
      table: "ops.readings",
      rows: [
        { sensor: "b", n: 2 },
        { sensor: "c", n: 3 },
      ],
    });
    expect(
      (await call(base, `/tables/ops/readings/scan?columns=sensor&snapshot=${first}`)).body.rows,
    ).toEqual([{ sensor: "a" }]);
    const arrow = await call(base, "/tables/ops/readings/scan?columns=value,n", {
      headers: { accept: "application/vnd.apache.arrow.stream" },
    });
    expect(arrow.type).toBe("application/vnd.apache.arrow.stream");
    const table = A.tableFromIPC(arrow.body as Uint8Array);
    expect(table.schema.fields.map((f) => f.name)).toEqual(["value", "n"]);
    expect(table.getChild("value")!.toArray()).toEqual(Float64Array.of(1.5, 2.5, -3));
    expect(table.getChild("n")!.toArray()).toEqual(BigInt64Array.of(1n, 2n, 3n));
    const limited = A.tableFromIPC((await call(base, "/tables/ops/readings/scan?format=arrow&limit=0")).body);
    expect(limited.numRows).toBe(0);
    expect(limited.schema.fields.length).toBeGreaterThan(3);
  });

  it("answers bad input with the AvaError code and its HTTP status", async () => {
    const base = server.url;
    const expectError = async (path: string, status: number, code: string, message?: RegExp, init = {}) => {
      const r = await call(base, path, init);
      expect(r.status, path).toBe(status);
      expect(r.body.error.code, path).toBe(code);
      if (message) expect(r.body.error.message, path).toMatch(message);
    };
    await expectError("/tables/ops/nope", 404, "NOT_FOUND", /table ops.nope does not exist/);
    await expectError(
      "/tables/ops/readings/scan?filter=n%20%3E",
      400,
      "INVALID_ARGUMENT",
      /a value is missing after n/,
    );
    await expectError("/tables/ops/readings/scan?columns=nope", 404, "NOT_FOUND", /column "nope"/);
    await expectError("/tables/ops/readings/scan?limit=-1", 400, "INVALID_ARGUMENT");
    await expectError("/tables/ops/readings/scan?snapshot=01NOPE", 404, "NOT_FOUND", /no snapshot 01NOPE/);
    await expectError("/tables/ops/readings/scan?format=xml", 400, "INVALID_ARGUMENT");
    // A path that would climb out of the root is refused by name, before any lookup.
    await expectError("/tables/..%2F..%2Fetc/passwd", 400, "INVALID_NAME");
    // fetch resolves %2E%2E as "..": the path becomes /tables/schema, which is no route.
    await expectError("/tables/ops/%2E%2E/schema", 404, "NOT_FOUND");
    await expectError("/nowhere", 404, "NOT_FOUND", /no route \/nowhere/);
    await expectError("/tables", 405, "METHOD_NOT_ALLOWED", undefined, { method: "POST" });
    await expectError("/runs/01NOSUCH", 404, "NOT_FOUND", /no run 01NOSUCH/);
  });

  it("describes every route in /openapi.json", async () => {
    const doc = (await call(server.url, "/openapi.json")).body;
    expect(doc.openapi).toBe("3.1.0");
    for (const path of [
      "/namespaces",
      "/tables/{ns}/{table}/scan",
      "/sql",
      "/runs/{id}",
      "/hooks/{workflow}",
    ])
      expect(Object.keys(doc.paths)).toContain(path);
    expect(doc.paths["/hooks/{workflow}"].post.security).toEqual([{ bearer: [] }]);
  });
});

describe("serve: SQL", () => {
  it("runs one read-only statement, pinned tables, JSON or Arrow", async () => {
    const base = server.url;
    const r = await call(base, "/sql", {
      body: { sql: "SELECT sensor, n FROM ops.readings WHERE n > ? ORDER BY n", params: [1] },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      columns: [
        { name: "sensor", type: "Utf8" },
        { name: "n", type: "Int64" },
      ],
      rows: [
        { sensor: "b", n: 2 },
        { sensor: "c", n: 3 },
      ],
    });
    const pinned = await call(base, "/sql", {
      body: { sql: "SELECT count(*) AS c FROM readings", at: { readings: first } },
    });
    expect(pinned.body.rows).toEqual([{ c: 1 }]);
    const arrow = await call(base, "/sql?format=arrow", { body: { sql: "SELECT 42 AS x" } });
    expect(A.tableFromIPC(arrow.body).getChild("x")!.get(0)).toBe(42);
  });

  it("refuses writes, several statements, files outside the storage, bad JSON and oversized bodies", async () => {
    const base = server.url;
    for (const sql of [
      "DROP VIEW readings",
      "SELECT 1; DROP VIEW readings",
      "CREATE TABLE t AS SELECT 1",
      "COPY (SELECT 1) TO '/tmp/x.csv'",
    ]) {
      const r = await call(base, "/sql", { body: { sql } });
      expect(r.status, sql).toBe(400);
      expect(r.body.error.message, sql).toMatch(/one read-only statement/);
    }
    const outside = await call(base, "/sql", { body: { sql: "SELECT * FROM read_csv('/etc/passwd')" } });
    expect(outside.status).toBe(400);
    expect(outside.body.error.code).toBe("SQL_ERROR");
    expect(
      (await call(base, "/sql", { body: { sql: "SELECT nope FROM ops.readings" } })).body.error.code,
    ).toBe("SQL_ERROR");
    const bad = await call(base, "/sql", { raw: "{nope", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/not JSON/);
    expect((await call(base, "/sql", { body: { query: "SELECT 1" } })).body.error.code).toBe(
      "INVALID_ARGUMENT",
    );
    const big = await call(base, "/sql", { body: { sql: `SELECT '${"x".repeat(2 << 20)}'` } });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe("TOO_LARGE");
    // The server is fine after all of that.
    expect((await call(base, "/sql", { body: { sql: "SELECT 1 AS one" } })).body.rows).toEqual([{ one: 1 }]);
  });
});

describe("serve: ingest", () => {
  const Telemetry = ava.defineNamespace({
    name: "telemetry",
    tables: { points: ava.table({ schema: ava.avro.avroStreamArrowSchema }) },
  });
  const file = async (value: number) => {
    const sink = ava.avro.memorySink();
    const w = ava.avro.createWriter(sink);
    w.enqueueBatch("altitude", [1n, 2n], [value, value + 1]);
    await w.close();
    return sink.bytes();
  };
  const post = (base: string, body: Uint8Array, headers: Record<string, string>) =>
    fetch(`${base}/tables/telemetry/points/ingest`, {
      method: "POST",
      body: body as Uint8Array<ArrayBuffer>,
      headers: { "content-type": "application/avro", ...headers },
    }).then(async (r) => ({ status: r.status, body: await r.json() }));

  it("appends each POSTed Avro stream file once per Idempotency-Key, behind the token", async () => {
    const ns = await Telemetry.open({ storage: ava.nodeStorage({ root }) });
    await ns.push();
    const bytes = await file(10);
    const auth = { authorization: `Bearer ${TOKEN}`, "idempotency-key": "batch-1" };
    const first = await post(secured.url, bytes, auth);
    expect(first).toMatchObject({ status: 200, body: { rows: 2, duplicate: false } });
    // Re-sent (its acknowledgement lost) and sent again concurrently: acknowledged, never appended twice.
    const again = await Promise.all([post(secured.url, bytes, auth), post(secured.url, bytes, auth)]);
    expect(again.map((r) => [r.status, r.body.duplicate, r.body.snapshotId])).toEqual([
      [200, true, first.body.snapshotId],
      [200, true, first.body.snapshotId],
    ]);
    expect(
      (await post(secured.url, await file(20), { ...auth, "idempotency-key": "batch-2" })).body.duplicate,
    ).toBe(false);
    const rows = await call(secured.url, "/tables/telemetry/points", { token: TOKEN });
    expect(rows.body).toMatchObject({ rows: 4, snapshots: 2 });
  });

  it("refuses without the token, a damaged file, an unknown table, and everything on a server without a token", async () => {
    const bytes = await file(1);
    expect(await post(secured.url, bytes, {})).toMatchObject({
      status: 401,
      body: { error: { code: "UNAUTHORIZED" } },
    });
    const damaged = await post(secured.url, bytes.slice(0, 20), { authorization: `Bearer ${TOKEN}` });
    expect(damaged.status).toBe(400);
    expect(damaged.body.error.code).toBe("AVRO_CORRUPT");
    const unknown = await fetch(`${secured.url}/tables/telemetry/nope/ingest`, {
      method: "POST",
      body: bytes as Uint8Array<ArrayBuffer>,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(unknown.status).toBe(404);
    expect((await post(server.url, bytes, {})).status).toBe(403);
    // Nothing of the refused requests was appended.
    expect((await call(secured.url, "/tables/telemetry/points", { token: TOKEN })).body.rows).toBe(4);
  });
});

describe("serve: webhooks and runs", () => {
  it("a webhook starts a run with the body as input; GET /runs/:id follows it to its value", async () => {
    const base = secured.url;
    const started = await call(base, "/hooks/ingest", { body: { count: 5, sensor: "hook" }, token: TOKEN });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({
      workflow: "ingest",
      status: "running",
      url: `/runs/${started.body.runId}`,
    });
    const done = await call(base, `/runs/${started.body.runId}?wait=30000`, { token: TOKEN });
    expect(done.body).toMatchObject({
      runId: started.body.runId,
      workflowName: "ingest",
      status: "success",
      value: { stored: 5, counted: 5 },
    });
    expect(done.body.nodes.store.logs[0].message).toBe("stored 5 readings");
    expect(done.body.metadata).toEqual({ trigger: "webhook" });
    const listed = (await call(base, "/runs?workflow=ingest", { token: TOKEN })).body.runs;
    expect(listed.map((r: { runId: string }) => r.runId)).toContain(started.body.runId);
    const rows = await call(base, "/sql", {
      body: { sql: "SELECT count(*) AS c FROM ops.readings WHERE sensor = 'hook'" },
      token: TOKEN,
    });
    expect(rows.body.rows).toEqual([{ c: 5 }]);
  });

  it("a run that fails is followed to its failure; unknown workflows and bad bodies are refused", async () => {
    const base = secured.url;
    const started = await call(base, "/hooks/ingest", { body: { count: 0 }, token: TOKEN });
    const done = await call(base, `/runs/${started.body.runId}?wait=30000`, { token: TOKEN });
    expect(done.body.status).toBe("failed");
    expect(done.body.nodes.generate.error).toMatchObject({
      code: "INVALID_ARGUMENT",
      message: "count 0 is not ≥ 1",
    });
    const unknown = await call(base, "/hooks/nope", { body: {}, token: TOKEN });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toMatch(
      /no workflow nope on this server \(its workflows: ingest, sleepy\)/,
    );
    const text = await call(base, "/hooks/ingest", {
      raw: "count=1",
      headers: { "content-type": "text/plain" },
      token: TOKEN,
    });
    expect(text.status).toBe(415);
    expect((await call(base, "/runs/x?wait=soon", { token: TOKEN })).status).toBe(400);
  });

  it("auth: with a token every route but /health and /openapi.json wants it; without one, writes are refused", async () => {
    expect((await call(secured.url, "/tables")).status).toBe(401);
    expect((await call(secured.url, "/tables", { token: "wrong-token-0123456789" })).body.error.code).toBe(
      "UNAUTHORIZED",
    );
    expect((await call(secured.url, "/tables", { token: TOKEN })).status).toBe(200);
    expect((await call(secured.url, "/hooks/ingest", { body: {} })).status).toBe(401);
    expect((await call(secured.url, "/sql", { body: { sql: "SELECT 1" } })).status).toBe(401);
    expect((await call(secured.url, "/health")).status).toBe(200);
    expect((await call(secured.url, "/openapi.json")).status).toBe(200);
    const open = await call(server.url, "/hooks/ingest", { body: {} });
    expect(open.status).toBe(403);
    expect(open.body.error.message).toMatch(/started without a token/);
    await expect(
      ava.startServer({ storage: ava.nodeStorage({ root }), host: "0.0.0.0", port: 0 }),
    ).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
      message: expect.stringMatching(/not loopback\) needs a token/),
    });
    await expect(
      ava.startServer({ storage: ava.nodeStorage({ root }), port: 0, token: "short" }),
    ).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
  });

  it("close() mid-request: the in-flight request and run finish, new connections are refused", async () => {
    const own = await ava.startServer({
      storage: ava.nodeStorage({ root }),
      port: 0,
      token: TOKEN,
      workflows: [sleepy],
    });
    const started = await call(own.url, "/hooks/sleepy", { body: { ms: 1500 }, token: TOKEN });
    const following = call(own.url, `/runs/${started.body.runId}?wait=30000`, { token: TOKEN });
    await new Promise((r) => setTimeout(r, 200)); // the follower is in flight
    const closing = own.close();
    const followed = await following;
    expect(followed.status).toBe(200);
    expect(followed.body).toMatchObject({ status: "success", value: "slept" });
    await closing;
    await expect(fetch(`${own.url}/health`)).rejects.toThrow();
    const record = await ava.getRun(ava.nodeStorage({ root }), started.body.runId);
    expect(record.status).toBe("success");
  });
});

// A step of the tests' own, scheduled every other minute and catching up every missed tick.
const Ticks = Ops;
const note = ava.step(
  async function note(inj: { ticks: ava.Table; ctx: ava.RunContext }) {
    await inj.ticks.append([
      { tick: String(inj.ctx.metadata.scheduledTick), workflow: inj.ctx.workflowName },
    ]);
  },
  { inject: { ticks: Ticks.tables.ticks, ctx: ava.runContext() } },
);
const everyOther = ava.workflow({ name: "every_other", schedule: "*/2 * * * *", catchUp: "all" }, () =>
  note(),
);

describe("serve: schedules", () => {
  const ticksOf = async (workflow: string) => {
    const ns = await Ops.open({ storage: ava.nodeStorage({ root }) });
    return (await ns.ticks.read())
      .toArray()
      .filter((r) => r.workflow === workflow)
      .map((r) => String(r.tick))
      .sort();
  };
  const settle = async (servers: ava.RunningServer[]) => {
    await Promise.all(servers.map((s) => s.scheduler.settled()));
    // The runs they started, each until it has ended: a run started a moment ago may not be recorded yet.
    const started = servers.flatMap((s) => [...s.scheduler.claimed.values()]);
    for (let i = 0; ; i++) {
      const ended = new Set(
        (await ava.listRuns(ava.nodeStorage({ root })))
          .filter((r) => r.status !== "running")
          .map((r) => r.runId),
      );
      if (started.every((id) => ended.has(id))) return;
      if (i === 1200)
        throw new Error(`scheduled runs did not end: ${started.filter((id) => !ended.has(id))}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  it("two servers on one root run each tick exactly once; a restart catches up by the declared policy", async () => {
    const clock = new ava.ManualClock(Date.parse("2030-01-01T00:00:30Z"));
    const options = { port: 0, clock, workflows: [minutely, everyOther] };
    const a = await ava.startServer({ storage: ava.nodeStorage({ root }), ...options });
    const b = await ava.startServer({ storage: ava.nodeStorage({ root }), ...options });
    await settle([a, b]);
    expect(await ticksOf("minutely")).toEqual([]); // nothing was due yet
    for (const t of ["00:01:00", "00:02:00", "00:03:00"]) {
      clock.set(Date.parse(`2030-01-01T${t}Z`));
      await settle([a, b]);
    }
    expect(await ticksOf("minutely")).toEqual([
      "2030-01-01T00:01:00.000Z",
      "2030-01-01T00:02:00.000Z",
      "2030-01-01T00:03:00.000Z",
    ]);
    expect(await ticksOf("every_other")).toEqual(["2030-01-01T00:02:00.000Z"]);
    // Each tick was claimed by one server only.
    expect(a.scheduler.claimed.size + b.scheduler.claimed.size).toBe(4);
    const runs = await ava.listRuns(ava.nodeStorage({ root }), { workflowName: "minutely" });
    expect(runs.map((r) => r.metadata.scheduledTick).sort()).toEqual(await ticksOf("minutely"));
    expect(runs.every((r) => r.status === "success")).toBe(true);
    await Promise.all([a.close(), b.close()]);

    // Down from 00:03 to 00:09:30: minutely ("latest") runs 00:09 only; every_other ("all") runs 04, 06, 08.
    clock.set(Date.parse("2030-01-01T00:09:30Z"));
    const c = await ava.startServer({ storage: ava.nodeStorage({ root }), ...options });
    await settle([c]);
    expect((await ticksOf("minutely")).slice(3)).toEqual(["2030-01-01T00:09:00.000Z"]);
    expect(await ticksOf("every_other")).toEqual([
      "2030-01-01T00:02:00.000Z",
      "2030-01-01T00:04:00.000Z",
      "2030-01-01T00:06:00.000Z",
      "2030-01-01T00:08:00.000Z",
    ]);
    // Restarted at the same time, a server finds every due tick claimed and runs nothing again.
    await c.close();
    const d = await ava.startServer({ storage: ava.nodeStorage({ root }), ...options });
    await settle([d]);
    expect(d.scheduler.claimed.size).toBe(0);
    expect(await ticksOf("minutely")).toHaveLength(4);
    await d.close();
  }, 120_000);

  it("a claimed tick cannot be claimed again (COMMIT_CONFLICT), and bad schedules are refused at definition", async () => {
    const storage = ava.nodeStorage({ root });
    const state = await storage.catalog.current();
    const last = state.schedules!.minutely!;
    await expect(
      storage.catalog.commit([
        {
          op: "claimTick",
          workflow: "minutely",
          tickMs: last.tickMs,
          runId: "x",
          claimedBy: "test",
          timestampMs: 0,
        },
      ]),
    ).rejects.toMatchObject({
      code: "COMMIT_CONFLICT",
      message: expect.stringMatching(/was already claimed/),
    });
    expect(() => ava.workflow({ name: "bad", schedule: "61 * * * *" }, () => note())).toThrow(
      /minute "61": 61 is outside 0-59/,
    );
    expect(() =>
      ava.workflow({ name: "bad", schedule: "* * * * *", catchUp: "some" as "all" }, () => note()),
    ).toThrow(/catchUp/);
  });
});

describe("serve: the command", () => {
  it("avalanche-web serve listens, answers, and stops gracefully on SIGTERM; refuses a public host without a token", async () => {
    const cli = await bundledCli();
    const child = spawn(process.execPath, [cli, "serve", "--root", root, "--port", "0"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    for (let i = 0; i < 600 && !/on http:/.test(out); i++) await new Promise((r) => setTimeout(r, 50));
    const url = /on (http:\/\/\S+)/.exec(out)![1]!;
    expect((await call(url, "/tables/ops/readings")).body.rows).toBeGreaterThan(0);
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(out).toMatch(/SIGTERM: finishing in-flight requests and runs\nstopped\n$/);
    const refused = spawn(process.execPath, [cli, "serve", "--root", root, "--host", "0.0.0.0"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    refused.stderr.on("data", (d) => (err += d));
    expect(await new Promise((r) => refused.on("exit", r))).toBe(1);
    expect(err).toBe(
      "avalanche-web: serving on 0.0.0.0 (not loopback) needs a token (--token T or AVALANCHE_TOKEN)\n",
    );
  }, 120_000);
});
