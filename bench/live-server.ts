// The receiving end of the live-stream benchmark, in a process of its own so that its work does not share
// the sender's event loop: `ingest` — ingestHandler over a table in a Node folder (fsync off: the library's
// work is timed, not this machine's disk); `discard` — reads each body and answers 200 (the network floor).
// Usage: node --import tsx bench/live-server.ts ingest|discard PORT ROOT; prints "listening URL". CORS is
// allowed for the Chromium case. `GET URL/cpu` answers the process's CPU time so far.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import * as ava from "../src/node.js";

const [mode, port = "0", root = ""] = process.argv.slice(2);

async function listener(): Promise<(req: IncomingMessage, res: ServerResponse) => void> {
  if (mode === "discard")
    return (req, res) => {
      req.on("data", () => {});
      req.on("end", () => res.writeHead(200).end());
    };
  const Telemetry = ava.defineNamespace({
    name: "telemetry",
    tables: { points: ava.table({ schema: ava.avro.avroStreamArrowSchema }) },
  });
  const ns = await Telemetry.open({ storage: ava.nodeStorage({ root, fsync: false }) });
  await ns.push();
  return ava.toNodeListener(ava.ingestHandler(ns.points, { maxBytes: 256 * 2 ** 20 }));
}

/**
 * The Chromium bench page (bench/live-browser.ts) posts from a Vite server on another port: every answer
 * allows it, and a preflight is answered here, cached by the browser for the run (Max-Age).
 */
function withCors(
  inner: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    res.setHeader("access-control-allow-origin", "*");
    if (req.method !== "OPTIONS") return inner(req, res);
    res.writeHead(204, {
      "access-control-allow-methods": "POST",
      "access-control-allow-headers": "content-type, idempotency-key",
      "access-control-max-age": "7200",
    });
    res.end();
  };
}

// Exit on the bench's SIGTERM rather than be killed, so that `node --cpu-prof` (NODE_OPTIONS) writes its profile.
process.once("SIGTERM", () => process.exit(0));

/** `GET …/cpu`: this process's CPU time so far (ms), so the bench can report the server's cost per point. */
function withCpu(
  inner: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (req.method !== "GET" || !req.url?.endsWith("/cpu")) return inner(req, res);
    const { user, system } = process.cpuUsage();
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ ms: (user + system) / 1000 }));
  };
}

const server = createServer(withCors(withCpu(await listener())));
server.keepAliveTimeout = 60_000;
server.listen(Number(port), "127.0.0.1", () => {
  const { port: bound } = server.address() as { port: number };
  process.stdout.write(`listening http://127.0.0.1:${bound}/ingest\n`);
});
