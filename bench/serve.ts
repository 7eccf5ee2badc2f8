// `avalanche-web serve` under load: the CLI's server in its own process on a real storage, 50 concurrent
// clients for BENCH_SERVE_SECONDS (default 30): half scan a table (JSON, limit 100), half ingest a small Avro
// stream file each request (a new Idempotency-Key, so each is one snapshot). Reports p50/p99 latency per
// kind and the error count, which must be 0. Beside it, in the same run: the same scans against a bare
// node:http server answering fixed bytes (the floor: HTTP and fetch alone).
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ava from "../src/node.js";
import { percentile, printTable, rate, ratio, type Row } from "./lib.js";

const CLIENTS = Number(process.env.BENCH_SERVE_CLIENTS ?? 50);
const SECONDS = Number(process.env.BENCH_SERVE_SECONDS ?? 30);
const TOKEN = "bench-token-0123456789abcdef";
const MAIN = join(import.meta.dirname, "..", "src", "cli", "main.ts");

interface Sample {
  kind: "scan" | "ingest" | "floor";
  ms: number;
  ok: boolean;
}

async function load(
  until: number,
  clients: number,
  request: (client: number, n: number) => Promise<{ kind: Sample["kind"]; ok: boolean }>,
): Promise<Sample[]> {
  const samples: Sample[] = [];
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let n = 0; Date.now() < until; n++) {
        const start = performance.now();
        let kind: Sample["kind"] = "scan";
        let ok = false;
        try {
          ({ kind, ok } = await request(client, n));
        } catch {
          ok = false;
        }
        samples.push({ kind, ms: performance.now() - start, ok });
      }
    }),
  );
  return samples;
}

function rows(samples: Sample[], seconds: number, floorP50?: number): Row[] {
  const out: Row[] = [];
  for (const kind of ["scan", "ingest", "floor"] as const) {
    const of = samples.filter((s) => s.kind === kind);
    if (of.length === 0) continue;
    const ms = of.map((s) => s.ms);
    const errors = of.filter((s) => !s.ok).length;
    const p50 = percentile(ms, 50);
    out.push({
      case: kind === "floor" ? "floor: bare node:http, fixed bytes" : `${kind} (${of.length} requests)`,
      median_ms: p50,
      rate: rate(of.length, seconds * 1000, "req"),
      ...(floorP50 !== undefined && kind === "scan" ? { ratio: ratio(p50, floorP50) } : {}),
      note: `p99 ${percentile(ms, 99).toFixed(1)} ms, errors ${errors}`,
    });
  }
  return out;
}

export async function benchServe(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "ava-bench-serve-"));
  const root = join(dir, "store");
  const Telemetry = ava.defineNamespace({
    name: "bench",
    tables: { points: ava.table({ schema: ava.avro.avroStreamArrowSchema }) },
  });
  const ns = await Telemetry.open({ storage: ava.nodeStorage({ root }) });
  await ns.push();
  const sink = ava.avro.memorySink();
  const writer = ava.avro.createWriter(sink);
  writer.enqueueBatch(
    "altitude",
    Array.from({ length: 100 }, (_, i) => BigInt(i)),
    Array.from({ length: 100 }, (_, i) => i * 0.5),
  );
  await writer.close();
  const file = sink.bytes() as Uint8Array<ArrayBuffer>;
  await ns.points.appendAvroStream(file);

  const child = spawn(
    process.execPath,
    ["--import", "tsx", MAIN, "serve", "--root", root, "--port", "0", "--token", TOKEN],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  for (let i = 0; i < 1200 && !/on http:/.test(out); i++) await new Promise((r) => setTimeout(r, 50));
  const url = /on (http:\/\/\S+)/.exec(out)?.[1];
  if (!url) throw new Error(`the server did not start: ${out}`);
  const auth = { authorization: `Bearer ${TOKEN}` };
  try {
    // Floor first: a bare server answering a scan's bytes, same clients, same time.
    const body = await (
      await fetch(`${url}/tables/bench/points/scan?limit=100`, { headers: auth })
    ).arrayBuffer();
    const bare = createServer((_, res) => res.end(Buffer.from(body))).listen(0, "127.0.0.1");
    await new Promise((r) => bare.once("listening", r));
    const barePort = (bare.address() as { port: number }).port;
    const floorSeconds = Math.max(1, Math.round(SECONDS / 3));
    const floor = await load(Date.now() + floorSeconds * 1000, CLIENTS, async () => {
      const r = await fetch(`http://127.0.0.1:${barePort}/`);
      await r.arrayBuffer();
      return { kind: "floor", ok: r.ok };
    });
    bare.close();
    const samples = await load(Date.now() + SECONDS * 1000, CLIENTS, async (client, n) => {
      if (client % 2 === 0) {
        const r = await fetch(`${url}/tables/bench/points/scan?limit=100`, { headers: auth });
        await r.arrayBuffer();
        return { kind: "scan", ok: r.ok };
      }
      const r = await fetch(`${url}/tables/bench/points/ingest`, {
        method: "POST",
        body: file,
        headers: { ...auth, "content-type": "application/avro", "idempotency-key": `c${client}-${n}` },
      });
      await r.arrayBuffer();
      return { kind: "ingest", ok: r.ok };
    });
    const floorRows = rows(floor, floorSeconds);
    printTable(
      `serve: ${CLIENTS} concurrent clients for ${SECONDS} s (half scan limit=100 JSON, half ingest 100-point Avro files)`,
      [...rows(samples, SECONDS, floorRows[0]?.median_ms), ...floorRows],
    );
    const errors = samples.filter((s) => !s.ok).length;
    if (errors > 0) console.log(`\n**${errors} requests failed** (errors must be 0)`);
  } finally {
    const exited = new Promise((r) => child.on("exit", r));
    child.kill("SIGTERM");
    await exited;
    await rm(dir, { recursive: true, force: true });
  }
}
