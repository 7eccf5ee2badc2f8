// The demo's ingest endpoint, started next to the dev server and the preview server: app code, not something
// avalanche-web needs in a bundler. POST /ingest is the library's `ingestHandler` on a Node table (each live
// batch appended exactly once, whatever the sender re-sends); GET /ingest answers that table's row count, so
// the page can show "sent == received". The table lives in demo/.avalanche-ingest (or $DEMO_INGEST_ROOT).
import type { IncomingMessage, ServerResponse } from "node:http";
import { fileURLToPath } from "node:url";
import type { Plugin } from "vite";

export const INGEST_PATH = "/ingest";

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** What GET /ingest answers. */
export interface IngestCount {
  rows: number;
  snapshots: number;
}

async function openEndpoint(root: string): Promise<Listener> {
  // loaded only when a server starts: `vite build` never opens the table
  const ava = await import("avalanche-web/node");
  const Received = ava.defineNamespace({
    name: "received",
    tables: { points: ava.table({ schema: ava.avro.avroStreamArrowSchema }) },
  });
  const ns = await Received.open({ storage: ava.nodeStorage({ root }) });
  await ns.push();
  const ingest = ava.toNodeListener(ava.ingestHandler(ns.points, { maxBytes: 16 * 2 ** 20 }));
  return (req, res) => {
    if (req.method !== "GET") return ingest(req, res);
    // the catalog knows every snapshot's row total: no data file is read
    ns.points.history().then(
      (history) => {
        const count: IngestCount = { rows: history.at(-1)?.totalRows ?? 0, snapshots: history.length };
        res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
        res.end(JSON.stringify(count));
      },
      (err: Error) => {
        res.writeHead(503, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: err.message } }));
      },
    );
  };
}

export function ingestEndpoint(
  root = process.env.DEMO_INGEST_ROOT ?? fileURLToPath(new URL("./.avalanche-ingest", import.meta.url)),
): Plugin {
  let endpoint: Promise<Listener> | undefined;
  const mount = (server: { middlewares: { use(path: string, fn: Listener): unknown } }) => {
    endpoint ??= openEndpoint(root);
    server.middlewares.use(INGEST_PATH, (req, res) => {
      endpoint!.then(
        (listener) => listener(req, res),
        (err: Error) => {
          res.writeHead(503);
          res.end(err.message);
        },
      );
    });
  };
  return { name: "demo-ingest-endpoint", configureServer: mount, configurePreviewServer: mount };
}
