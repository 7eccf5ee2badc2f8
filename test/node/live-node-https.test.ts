// https through the live stream's Node transport: a certificate made at test time with openssl (on
// 127.0.0.1, self-signed), a real https server running the ingest endpoint. Trusted through the stream's
// `tls: { ca }`, every point lands once; not trusted (no ca, or a name the certificate does not cover), each
// send fails at once with an IO_ERROR saying the certificate was refused — nothing is sent, no hang — and
// the batch stays in the outbox until a stream that trusts the server sends it.
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as ava from "../../src/node.js";
import { expectAvaError } from "../shared/fixtures.js";
import { waitFor } from "../shared/subscribe-contract.js";

let dir: string;
let cert: string;
let port: number;
let requests = 0;
let close: () => Promise<void>;
const Telemetry = ava.defineNamespace({
  name: "telemetry",
  tables: { points: ava.table({ schema: ava.avro.avroStreamArrowSchema }) },
});
let ns: Awaited<ReturnType<typeof Telemetry.open>>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ava-https-"));
  // A self-signed certificate for the IP 127.0.0.1 only (so "localhost" does not match it).
  execFileSync(
    "openssl",
    [
      ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
      ...["-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-days", "2"],
      ...["-subj", "/CN=ava test server", "-addext", "subjectAltName=IP:127.0.0.1"],
    ],
    { stdio: "pipe" },
  );
  cert = await readFile(join(dir, "cert.pem"), "utf8");
  ns = await Telemetry.open({ storage: ava.memoryStorage() });
  await ns.push();
  const handle = ava.toNodeListener(ava.ingestHandler(ns.points));
  const server = createServer({ key: await readFile(join(dir, "key.pem")), cert }, (req, res) => {
    requests++;
    handle(req, res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
  close = () => {
    server.closeAllConnections();
    return new Promise((r) => server.close(() => r()));
  };
});

afterAll(async () => {
  await close?.();
  await rm(dir, { recursive: true, force: true });
});

const file = ava.avro.encodeAvroStream([
  {
    channel: "c",
    timestamps: BigInt64Array.of(1n),
    values: { kind: "double", values: Float64Array.of(1) },
    tags: {},
  },
]);
const batch = async (id: string): Promise<ava.avro.LiveBatch> => ({ id, bytes: await file, points: 1 });

describe("https through the Node transport", () => {
  it("refuses an untrusted or misnamed certificate at once with an IO_ERROR that says so; nothing is sent", async () => {
    const signal = new AbortController().signal;
    const untrusted = ava.avro.avroTransport({ url: `https://127.0.0.1:${port}/ingest` });
    await expectAvaError(
      untrusted(await batch("u1"), signal),
      "IO_ERROR",
      /certificate was not accepted/,
      /tls\.ca/,
    );
    // Trusted, but the name is not the certificate's (it covers 127.0.0.1 only).
    const misnamed = ava.avro.avroTransport({ url: `https://localhost:${port}/ingest`, tls: { ca: cert } });
    await expectAvaError(
      misnamed(await batch("m1"), signal),
      "IO_ERROR",
      /certificate was not accepted/,
      /ALTNAME/,
    );
    const nominal = ava.avro.nominalTransport({ url: `https://127.0.0.1:${port}/api`, datasetRid: "ri.x" });
    await expectAvaError(nominal(await batch("n1"), signal), "IO_ERROR", /certificate was not accepted/);
    expect(requests).toBe(0);
    expect(await ns.points.history()).toEqual([]);
  });

  it("refuses a tls option that is not { ca } with INVALID_ARGUMENT", async () => {
    const url = `https://127.0.0.1:${port}/ingest`;
    for (const tls of [{}, { ca: 42 }, { ca: [] }, null])
      await expectAvaError(
        () => ava.avro.createLiveStream({ url, tls: tls as never }),
        "INVALID_ARGUMENT",
        /tls must be \{ ca \}/,
      );
  });

  it("with the certificate as tls.ca, a stream whose sends were refused resumes from its outbox: every point once", async () => {
    const outbox = ava.nodeStorage({ root: join(dir, "outbox") });
    const url = `https://127.0.0.1:${port}/ingest`;
    const refused = ava.avro.createLiveStream({ url, outbox, name: "s", backoffMs: 20 });
    const ts = BigInt64Array.from({ length: 1_000 }, (_, i) => 1_757_500_000_000_000_000n + BigInt(i));
    refused.enqueueBatch(
      "speed",
      ts,
      Float64Array.from(ts, (_, i) => i / 4),
    );
    await waitFor(() => refused.status().pointsInOutbox === 1_000, "the batch stored in the outbox");
    await waitFor(() => refused.status().retries > 0, "a refused send, tried again");
    const { lastError } = refused.status();
    expect([(lastError as ava.AvaError).code, lastError?.message]).toEqual([
      "IO_ERROR",
      expect.stringMatching(/certificate was not accepted/),
    ]);
    await refused.abort(); // the batch stays in the outbox for the next stream of this name
    expect(requests).toBe(0);

    const trusted = ava.avro.createLiveStream({
      url,
      outbox,
      name: "s",
      tls: { ca: [cert] },
    });
    trusted.enqueue("speed", ts.at(-1)! + 1n, 1000);
    await trusted.close();
    expect(trusted.status()).toMatchObject({ batchesInOutbox: 0, batchesSent: 2, pointsSent: 1_001 });
    const rows = await ns.points.read();
    expect(rows.numRows).toBe(1_001);
    expect(new Set(Array.from(rows.getChild("timestamp")!.toArray() as BigInt64Array)).size).toBe(1_001);
  });
});
