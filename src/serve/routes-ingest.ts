// `POST /tables/:ns/:table/ingest`: the live-telemetry ingest endpoint for any table declared with
// `avro.avroStreamArrowSchema` — the library's ingestHandler (one Avro stream file per POST, appended once
// per Idempotency-Key) mounted on the server, behind the server's token like every mutating route.
import { ingestHandler } from "../ingest/ingest-handler.js";
import { toNodeListener } from "../ingest/node-listener.js";
import { findTable, storedTable } from "../table/stored-table.js";
import { checkName } from "../util/names.js";
import type { Route } from "./routes.js";

/** Handlers by "ns.table@schemaVersion": a table whose schema evolved gets a new one. */
const HANDLERS = "ingestHandlers";

export function ingestRoutes(maxBytes: number): Route[] {
  return [
    {
      method: "POST",
      path: "/tables/:ns/:table/ingest",
      mutating: true,
      summary:
        "appends one Avro stream file (application/avro) to a table of avro.avroStreamArrowSchema; an Idempotency-Key makes re-sends land once",
      async handler({ req, res, params, state }) {
        checkName("namespace", params.ns);
        checkName("table", params.table);
        const entry = findTable(await state.storage.catalog.current(), `${params.ns}.${params.table}`);
        const key = `${entry.namespace}.${entry.name}@${entry.uuid}@${entry.schemas?.at(-1)?.id ?? 0}`;
        let handlers = state.extra.get(HANDLERS) as
          | Map<string, ReturnType<typeof toNodeListener>>
          | undefined;
        if (!handlers) {
          handlers = new Map();
          state.extra.set(HANDLERS, handlers);
        }
        let listener = handlers.get(key);
        if (!listener) {
          listener = toNodeListener(ingestHandler(storedTable(state.storage, entry), { maxBytes }));
          handlers.set(key, listener);
        }
        // The handler answers by itself (its errors too); the request counts as in flight until it has.
        await new Promise<void>((resolve) => {
          res.once("close", resolve);
          res.once("finish", resolve);
          listener(req, res);
        });
      },
    },
  ];
}
