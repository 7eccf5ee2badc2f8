// The "nominal" transport against a local fake of Nominal's writer endpoint. The fake decodes what it gets
// with independent code — Snappy's framing in Python (fixtures/snappy_unframe.py), the protobuf by
// protobufjs from the .proto text — so a wrong field number, wire type, CRC mask or chunk header fails here.
import { execFileSync } from "node:child_process";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";
import { afterEach, describe, expect, it } from "vitest";
import { createLiveStream, nominalTransport } from "../../src/avro.js";
import { snappyFrame } from "../../src/avro/live/snappy-framed.js";
import { expectAvaError } from "../shared/fixtures.js";

const PYTHON = "/usr/bin/python3";
const UNFRAME = fileURLToPath(new URL("./fixtures/snappy_unframe.py", import.meta.url));

/** Snappy's framing format undone in Python, checking every chunk's masked CRC-32C. */
function pythonUnframe(framed: Uint8Array): Uint8Array {
  return new Uint8Array(execFileSync(PYTHON, [UNFRAME], { input: framed, maxBuffer: 1 << 30 }));
}

// The messages of nominal-streaming's proto (io.nominal.scout.api.proto), as shared/reference lists them.
const PROTO = `
syntax = "proto3";
package io.nominal.scout.api.proto;
message Timestamp { int64 seconds = 1; int32 nanos = 2; }
message WriteRequestNominal { repeated Series series = 1; }
message Series { Channel channel = 1; map<string, string> tags = 2; Points points = 3; }
message Channel { string name = 1; }
message Points {
  oneof points_type {
    DoublePoints double_points = 1; StringPoints string_points = 2; IntegerPoints integer_points = 3;
    DoubleArrayPoints double_array_points = 4; StringArrayPoints string_array_points = 5;
  }
}
message DoublePoints { repeated DoublePoint points = 1; }
message StringPoints { repeated StringPoint points = 1; }
message IntegerPoints { repeated IntegerPoint points = 1; }
message DoubleArrayPoints { repeated DoubleArrayPoint points = 1; }
message StringArrayPoints { repeated StringArrayPoint points = 1; }
message DoublePoint { Timestamp timestamp = 1; double value = 2; }
message StringPoint { Timestamp timestamp = 1; string value = 2; }
message IntegerPoint { Timestamp timestamp = 1; int64 value = 2; }
message DoubleArrayPoint { Timestamp timestamp = 1; repeated double value = 2; }
message StringArrayPoint { Timestamp timestamp = 1; repeated string value = 2; }
`;
const WriteRequest = protobuf.parse(PROTO).root.lookupType("io.nominal.scout.api.proto.WriteRequestNominal");

interface Received {
  path: string;
  headers: IncomingMessage["headers"];
  /** channel -> "seconds.nanos=value" strings */
  points: Map<string, string[]>;
  tags: Map<string, Record<string, string>>;
}

async function bodyOf(req: IncomingMessage): Promise<Uint8Array> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return new Uint8Array(Buffer.concat(parts));
}

/** Decoded points as comparable strings: "seconds.nanos=value". */
function pointStrings(points: Record<string, { points: Record<string, unknown>[] }>): string[] {
  const [kind, list] = Object.entries(points).find(([k]) => k.endsWith("Points"))!;
  return list.points.map((p) => {
    const ts = p.timestamp as { seconds?: string; nanos?: number };
    const value = p.value;
    const shown = Array.isArray(value) ? JSON.stringify(value) : String(value);
    return `${kind}:${ts.seconds ?? "0"}.${ts.nanos ?? 0}=${shown}`;
  });
}

let servers: Server[] = [];
afterEach(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  servers = [];
});

async function fakeNominal(failFirst = 0) {
  const received: Received[] = [];
  let calls = 0;
  const server = createServer(async (req, res) => {
    const framed = await bodyOf(req);
    if (calls++ < failFirst) return res.writeHead(503).end();
    try {
      received.push(decode(req, framed));
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    } catch (err) {
      res.writeHead(400).end(`the fake could not decode the request: ${(err as Error).message}`);
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  servers.push(server);
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`, received };
}

function decode(req: IncomingMessage, framed: Uint8Array): Received {
  const decoded = WriteRequest.toObject(WriteRequest.decode(pythonUnframe(framed)), {
    longs: String,
    defaults: false,
  }) as { series: { channel: { name: string }; tags?: Record<string, string>; points: never }[] };
  const got: Received = { path: req.url!, headers: req.headers, points: new Map(), tags: new Map() };
  for (const s of decoded.series) {
    got.points.set(s.channel.name, [...(got.points.get(s.channel.name) ?? []), ...pointStrings(s.points)]);
    got.tags.set(s.channel.name, s.tags ?? {});
  }
  return got;
}

describe("the nominal transport", () => {
  it("sends WriteRequestNominal, snappy-framed, to the dataset's writer endpoint with the token", async () => {
    const { base, received } = await fakeNominal(1);
    const live = createLiveStream({
      url: base,
      transport: "nominal",
      datasetRid: "ri.catalog.main.dataset.abc-123",
      token: "tok",
      backoffMs: 5,
    });
    const t = 1_757_500_000_123_456_789n;
    live.enqueueBatch("speed", [t, t + 1n, -1n], [1.5, -0, Number.MAX_VALUE], { car: "7" });
    live.enqueue("gear", t, 2n ** 62n);
    live.enqueue("gear", t + 5n, -3n);
    live.enqueue("state", t, "DRIVE ✓");
    live.enqueue("vec", t, [0.25, 1e-300]);
    live.enqueue("labels", t, ["a", "", "ü"]);
    await live.close();
    expect(live.status()).toMatchObject({ batchesSent: 1, retries: 1 });
    expect(received).toHaveLength(1);
    const [got] = received;
    expect(got!.path).toBe("/api/storage/writer/v1/nominal/ri.catalog.main.dataset.abc-123");
    expect(got!.headers["content-type"]).toBe("application/x-protobuf");
    expect(got!.headers["content-encoding"]).toBe("x-snappy-framed");
    expect(got!.headers.authorization).toBe("Bearer tok");
    expect(got!.points.get("speed")).toEqual([
      "doublePoints:1757500000.123456789=1.5",
      "doublePoints:1757500000.123456790=0",
      `doublePoints:-1.999999999=${Number.MAX_VALUE}`,
    ]);
    expect(got!.tags.get("speed")).toEqual({ car: "7" });
    expect(got!.points.get("gear")).toEqual([
      `integerPoints:1757500000.123456789=${2n ** 62n}`,
      "integerPoints:1757500000.123456794=-3",
    ]);
    expect(got!.points.get("state")).toEqual(["stringPoints:1757500000.123456789=DRIVE ✓"]);
    expect(got!.points.get("vec")).toEqual(["doubleArrayPoints:1757500000.123456789=[0.25,1e-300]"]);
    expect(got!.points.get("labels")).toEqual(['stringArrayPoints:1757500000.123456789=["a","","ü"]']);
  });

  it("sends large batches intact (many framing chunks, nested lengths past one byte)", async () => {
    const { base, received } = await fakeNominal();
    const live = createLiveStream({ url: base, transport: "nominal", datasetRid: "ds", maxBatchPoints: 1e6 });
    const n = 12_000; // ~320 KB of protobuf: five framing chunks
    const ts = BigInt64Array.from({ length: n }, (_, i) => BigInt(i) * 1_000_000n);
    const values = Float64Array.from({ length: n }, (_, i) => Math.sin(i) * 1e6);
    live.enqueueBatch("sine", ts, values);
    await live.close();
    const got = received[0]!.points.get("sine")!;
    expect(got).toHaveLength(n);
    expect(got[11_234]).toBe(`doublePoints:11.234000000=${values[11_234]}`);
  });

  it("refuses JSON points when enqueued, naming the channel, and bad options at once", async () => {
    const { base, received } = await fakeNominal();
    const live = createLiveStream({ url: base, transport: "nominal", datasetRid: "ds" });
    await expectAvaError(() => live.enqueue("event", 1n, { ok: true }), "INVALID_ARGUMENT", /"event".*JSON/);
    await expectAvaError(
      () => live.enqueueFromDict(1n, { speed: 1, event: { ok: true } }),
      "INVALID_ARGUMENT",
      /"event".*JSON.*nothing/,
    );
    await expectAvaError(() => live.enqueueBatch("e", [1n], [{ a: 1 }]), "INVALID_ARGUMENT", /"e"/);
    live.enqueue("speed", 2n, 3);
    await live.close();
    expect([...received[0]!.points.keys()]).toEqual(["speed"]); // nothing of the refused calls was sent
    await expectAvaError(
      () => createLiveStream({ url: base, transport: "nominal" }),
      "INVALID_ARGUMENT",
      /datasetRid/,
    );
    await expectAvaError(
      () => nominalTransport({ url: base, datasetRid: "../../etc" }),
      "INVALID_ARGUMENT",
      /datasetRid/,
    );
    await expectAvaError(
      () => nominalTransport({ url: "nope", datasetRid: "ds" }),
      "INVALID_ARGUMENT",
      /absolute/,
    );
  });
});

describe("snappyFrame", () => {
  it("is read back by an independent Python reader: empty, compressible, incompressible, across chunk boundaries", () => {
    const random = new Uint8Array(70_000);
    for (let i = 0; i < random.length; i++) random[i] = (Math.imul(i, 2654435761) >>> 13) & 0xff;
    const text = new TextEncoder().encode("telemetry ".repeat(7_000));
    for (const input of [new Uint8Array(0), new Uint8Array([7]), text, random, new Uint8Array(65_536)]) {
      expect(pythonUnframe(snappyFrame(input))).toEqual(input);
    }
  });
});
