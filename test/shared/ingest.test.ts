// The ingest endpoint as a fetch handler (Node and Chromium): one Avro stream file a POST, appended as one
// snapshot with its Idempotency-Key in the same commit; a re-sent or concurrent copy is acknowledged without a
// second append; bad requests get a status and an AvaError code, and leave the table as it was.
import { z } from "zod";
import { describe, expect, it } from "vitest";
import * as ava from "../../src/index.js";
import { expectAvaError } from "./fixtures.js";

const Telemetry = ava.defineNamespace({
  name: "telemetry",
  tables: { points: ava.table({ schema: ava.avro.avroStreamArrowSchema }) },
});
const Other = ava.defineNamespace({
  name: "other",
  tables: { points: ava.table({ schema: z.object({ v: z.number() }) }) },
});

const URL_ = "http://ingest.test/points";

/** An Avro stream file of `n` double points on `channels` channels, starting at `from` ns. */
async function batchFile(n: number, channels = 2, from = 0n): Promise<Uint8Array> {
  const sink = ava.avro.memorySink();
  const w = ava.avro.createWriter(sink);
  for (let c = 0; c < channels; c++) {
    const ts = Array.from({ length: n / channels }, (_, i) => from + BigInt(i));
    w.enqueueBatch(
      `ch${c}`,
      ts,
      ts.map((t) => Number(t) * 0.5),
    );
  }
  await w.close();
  return sink.bytes();
}

function post(body: Uint8Array | null, headers: Record<string, string> = {}): Request {
  return new Request(URL_, { method: "POST", body: body as BodyInit | null, headers });
}

async function fresh() {
  const ns = await Telemetry.open({ storage: ava.memoryStorage() });
  await ns.push();
  return ns;
}

/** A response body: a receipt, or `{ error: { code, message } }`. */
interface Body {
  snapshotId: string;
  rows: number;
  duplicate: boolean;
  error: { code: string; message: string };
}

async function json(res: Response): Promise<Body> {
  return (await res.json()) as Body;
}

describe("ingestHandler", () => {
  it("appends a posted file as one snapshot and answers its receipt", async () => {
    const ns = await fresh();
    const handle = ava.ingestHandler(ns.points);
    const res = await handle(post(await batchFile(100), { "idempotency-key": "batch-1" }));
    expect(res.status).toBe(200);
    const receipt = await json(res);
    expect(receipt).toMatchObject({ rows: 100, duplicate: false });
    const history = await ns.points.history();
    expect(history.map((s) => s.id)).toEqual([receipt.snapshotId]);
    expect(history[0]!.idempotencyKey).toBe("batch-1");
    expect((await ns.points.scan().toArrow()).numRows).toBe(100);
  });

  it("acknowledges a re-sent batch without appending it again", async () => {
    const ns = await fresh();
    const handle = ava.ingestHandler(ns.points);
    const file = await batchFile(10);
    const first = await json(await handle(post(file, { "idempotency-key": "k1" })));
    await handle(post(await batchFile(4, 2, 1000n), { "idempotency-key": "k2" }));
    const again = await handle(post(file, { "idempotency-key": "k1" }));
    expect(again.status).toBe(200);
    expect(await json(again)).toEqual({ snapshotId: first.snapshotId, rows: 10, duplicate: true });
    expect(await ns.points.history()).toHaveLength(2);
    expect((await ns.points.scan().toArrow()).numRows).toBe(14);
  });

  it("commits one of several concurrent copies of a batch", async () => {
    const ns = await fresh();
    const handle = ava.ingestHandler(ns.points);
    const file = await batchFile(50);
    const receipts = await Promise.all(
      Array.from({ length: 6 }, async () => json(await handle(post(file, { "idempotency-key": "same" })))),
    );
    expect(receipts.filter((r) => !r.duplicate)).toHaveLength(1);
    expect(new Set(receipts.map((r) => r.snapshotId)).size).toBe(1);
    expect((await ns.points.scan().toArrow()).numRows).toBe(50);
  });

  it("appends a batch without a key every time it is posted (nothing to dedupe by)", async () => {
    const ns = await fresh();
    const handle = ava.ingestHandler(ns.points);
    const file = await batchFile(6);
    for (let i = 0; i < 2; i++) expect((await handle(post(file))).status).toBe(200);
    expect((await ns.points.scan().toArrow()).numRows).toBe(12);
  });

  it("refuses bad requests with a status and a code, appending nothing", async () => {
    const ns = await fresh();
    const handle = ava.ingestHandler(ns.points, { maxBytes: 4096 });
    const good = await batchFile(10);
    const cases: [Request, number, string, RegExp][] = [
      [post(good.slice(0, good.length - 7), { "idempotency-key": "a" }), 400, "AVRO_CORRUPT", /./],
      [post(new TextEncoder().encode("not avro at all")), 400, "AVRO_CORRUPT", /./],
      [post(null), 400, "INVALID_ARGUMENT", /no body/],
      [post(good, { "idempotency-key": "has space" }), 400, "INVALID_ARGUMENT", /idempotencyKey/],
      [post(good, { "idempotency-key": "x".repeat(201) }), 400, "INVALID_ARGUMENT", /200/],
      [post(new Uint8Array(5000)), 413, "TOO_LARGE", /at most 4096/],
      [new Request(URL_, { method: "GET" }), 405, "INVALID_ARGUMENT", /POST/],
    ];
    for (const [request, status, code, message] of cases) {
      const res = await handle(request);
      expect(res.status, code).toBe(status);
      const { error } = await json(res);
      expect(error.code).toBe(code);
      expect(error.message).toMatch(message);
    }
    expect(await ns.points.history()).toHaveLength(0);
    // The corrupt batch's key was not spent: the whole batch is taken when it comes.
    expect(await json(await handle(post(good, { "idempotency-key": "a" })))).toMatchObject({
      duplicate: false,
    });
  });

  it("stops reading a body without a length once it passes maxBytes", async () => {
    const ns = await fresh();
    const handle = ava.ingestHandler(ns.points, { maxBytes: 1000 });
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(512));
      },
    });
    const request = new Request(URL_, { method: "POST", body: endless, duplex: "half" } as RequestInit);
    const res = await handle(request);
    expect(res.status).toBe(413);
    expect(pulled).toBeLessThan(10);
  });

  it("refuses a file whose columns are not the Avro stream schema's", async () => {
    const ns = await Other.open({ storage: ava.memoryStorage() });
    await ns.push();
    const res = await ava.ingestHandler(ns.points)(post(await batchFile(4)));
    expect(res.status).toBe(400);
    expect((await json(res)).error.code).toBe("SCHEMA_MISMATCH");
  });

  it("requires the bearer token it was given", async () => {
    const ns = await fresh();
    const handle = ava.ingestHandler(ns.points, { auth: "s3cret" });
    const file = await batchFile(4);
    for (const authorization of [undefined, "Bearer wrong!", "Bearer s3cret2", "s3cret"]) {
      const res = await handle(post(file, authorization ? { authorization } : {}));
      expect(res.status).toBe(401);
      expect((await json(res)).error.code).toBe("UNAUTHORIZED");
    }
    expect((await handle(post(file, { authorization: "Bearer s3cret" }))).status).toBe(200);
    const byFunction = ava.ingestHandler(ns.points, { auth: (r) => r.headers.get("x-team") === "ops" });
    expect((await byFunction(post(file))).status).toBe(401);
    expect((await byFunction(post(file, { "x-team": "ops" }))).status).toBe(200);
    expect((await ns.points.scan().toArrow()).numRows).toBe(8);
  });

  it("refuses options of the wrong shape when it is made", async () => {
    const ns = await fresh();
    await expectAvaError(() => ava.ingestHandler(ns.points, { maxBytes: 0 }), "INVALID_ARGUMENT", /maxBytes/);
    await expectAvaError(() => ava.ingestHandler(ns.points, { auth: "" }), "INVALID_ARGUMENT", /auth/);
    await expectAvaError(
      () => ava.ingestHandler(ns.points, { compression: "lzo" as never }),
      "INVALID_ARGUMENT",
      /ingestHandler: compression "lzo"/,
    );
  });

  it("writes uncompressed files by default, zstd when asked, with the same rows", async () => {
    const ns = await fresh();
    const file = await batchFile(2000);
    const sizes: number[] = [];
    for (const handle of [
      ava.ingestHandler(ns.points),
      ava.ingestHandler(ns.points, { compression: "zstd" }),
    ]) {
      const receipt = await json(await handle(post(file)));
      const snapshot = (await ns.points.history()).find((s) => s.id === receipt.snapshotId)!;
      sizes.push(snapshot.addedFiles[0]!.sizeBytes);
    }
    expect(sizes[0]).toBeGreaterThan(sizes[1]! * 1.5); // 1 ns apart timestamps, x0.5 values: compressible
    const rows = await ns.points.scan().toArrow();
    expect(rows.numRows).toBe(4000);
    const doubles = rows.getChild("double")!.toArray() as Float64Array;
    expect([...doubles.subarray(2000)]).toEqual([...doubles.subarray(0, 2000)]);
  });
});

describe("table.append with an idempotencyKey", () => {
  it("writes once and answers the earlier snapshot after", async () => {
    const ns = await fresh();
    const file = await batchFile(8);
    const a = await ns.points.appendAvroStream(file, { idempotencyKey: "one" });
    const b = await ns.points.appendAvroStream(file, { idempotencyKey: "one" });
    expect(a.duplicate).toBe(false);
    expect(b.duplicate).toBe(true);
    expect(b.snapshotId).toBe(a.snapshotId);
    expect((await ns.points.scan().toArrow()).numRows).toBe(8);
  });

  it("refuses a key that is not printable ASCII", async () => {
    const ns = await fresh();
    const file = await batchFile(2);
    for (const key of ["", "é", "a b", 5 as unknown as string])
      await expectAvaError(
        ns.points.appendAvroStream(file, { idempotencyKey: key }),
        "INVALID_ARGUMENT",
        /idempotencyKey/,
      );
    expect(await ns.points.history()).toHaveLength(0);
  });
});
