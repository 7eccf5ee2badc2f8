// `POST /sql`: one read-only statement over every table of the storage (views `ns.table`, and `table`
// when unique), optionally with tables pinned at snapshots; JSON rows or an Arrow IPC stream. DuckDB is
// confined to the storage's data files (no other path, no extensions, locked settings).
import * as A from "apache-arrow";
import { AvaError } from "../errors.js";
import { jsonSafe } from "../util/json-safe.js";
import { isReadOnlySql } from "../sql/read-only.js";
import { toObjects } from "../table/rows.js";
import { readJson, sendJson } from "./http-util.js";
import type { Route } from "./routes.js";
import { ARROW_STREAM } from "./routes-tables.js";

interface SqlRequest {
  sql: string;
  params?: unknown[];
  /** "ns.table" -> snapshot id. */
  at?: Record<string, string>;
  format?: "json" | "arrow";
}

function checkRequest(body: unknown): SqlRequest {
  const b = body as Partial<SqlRequest> | undefined;
  if (typeof b !== "object" || b === null || typeof b.sql !== "string")
    throw new AvaError(
      "INVALID_ARGUMENT",
      'POST /sql takes JSON { "sql": "SELECT …", "params"?: [], "at"?: { "ns.table": "SNAPSHOT" } }',
    );
  if (b.params !== undefined && !Array.isArray(b.params))
    throw new AvaError("INVALID_ARGUMENT", "params must be an array");
  if (
    b.at !== undefined &&
    (typeof b.at !== "object" || b.at === null || Object.values(b.at).some((v) => typeof v !== "string"))
  )
    throw new AvaError("INVALID_ARGUMENT", 'at must map "ns.table" to a snapshot id');
  if (!isReadOnlySql(b.sql))
    throw new AvaError(
      "INVALID_ARGUMENT",
      "the server runs one read-only statement per request (SELECT, WITH, FROM, VALUES, DESCRIBE, SHOW, EXPLAIN, SUMMARIZE, PIVOT, TABLE)",
    );
  return b as SqlRequest;
}

export const sqlRoutes: Route[] = [
  {
    method: "POST",
    path: "/sql",
    mutating: false,
    summary: 'one read-only SQL statement: { "sql", "params"?, "at"?: { "ns.table": snapshot } }',
    async handler({ req, res, state, query }) {
      const request = checkRequest(await readJson(req, state.limits.maxBodyBytes));
      const db = (await state.sql()).at(request.at ?? {});
      const table = await db.query(request.sql, request.params, { timeoutMs: state.limits.sqlTimeoutMs });
      const arrow =
        request.format === "arrow" ||
        query.get("format") === "arrow" ||
        (req.headers.accept ?? "").includes(ARROW_STREAM);
      if (arrow) {
        const bytes = A.tableToIPC(table, "stream");
        res.writeHead(200, { "content-type": ARROW_STREAM, "content-length": bytes.length });
        res.end(bytes);
        return;
      }
      sendJson(res, 200, {
        columns: table.schema.fields.map((f) => ({ name: f.name, type: String(f.type) })),
        rows: toObjects(table).map(jsonSafe),
      });
    },
  },
];
