// Read-only REST over the catalog and the tables: namespaces, tables with their sizes, schemas (with the
// provenance columns marked), snapshot histories, and scans as Arrow IPC streams or JSON.
import * as A from "apache-arrow";
import { AvaError } from "../errors.js";
import { isProvenanceColumn } from "../schema/provenance.js";
import type { TableState } from "../storage/catalog/state.js";
import { parseFilter } from "../table/filter-text.js";
import { toObjects } from "../table/rows.js";
import { findTable, storedTable } from "../table/stored-table.js";
import { checkName } from "../util/names.js";
import { jsonSafe } from "../util/json-safe.js";
import { sendJson } from "./http-util.js";
import type { Route, RouteContext } from "./routes.js";

export const ARROW_STREAM = "application/vnd.apache.arrow.stream";

function summary(t: TableState) {
  const live = t.history.liveFiles;
  return {
    namespace: t.namespace,
    name: t.name,
    snapshots: t.history.length,
    rows: t.history.current?.totalRows ?? 0,
    files: live.length,
    bytes: live.reduce((n, f) => n + f.sizeBytes, 0),
    currentSnapshot: t.history.current?.id ?? null,
    updatedMs: t.history.current?.timestampMs ?? t.createdMs,
  };
}

/** The table a path names; names are checked first, so nothing odd reaches a lookup. */
async function tableOf({ params, state }: RouteContext): Promise<TableState> {
  checkName("namespace", params.ns);
  checkName("table", params.table);
  return findTable(await state.storage.catalog.current(), `${params.ns}.${params.table}`);
}

function wantsArrow(ctx: RouteContext): boolean {
  const format = ctx.query.get("format");
  if (format === "arrow") return true;
  if (format === "json") return false;
  if (format !== null)
    throw new AvaError("INVALID_ARGUMENT", `format is "arrow" or "json", got ${JSON.stringify(format)}`);
  return (ctx.req.headers.accept ?? "").includes(ARROW_STREAM);
}

async function scan(ctx: RouteContext): Promise<void> {
  const { query, state, res } = ctx;
  const table = storedTable(state.storage, await tableOf(ctx));
  const limitText = query.get("limit");
  const limit = limitText === null ? undefined : Number(limitText);
  if (limitText !== null && !(Number.isSafeInteger(limit) && limit! >= 0))
    throw new AvaError(
      "INVALID_ARGUMENT",
      `limit must be a whole number ≥ 0, got ${JSON.stringify(limitText)}`,
    );
  const columns = query
    .get("columns")
    ?.split(",")
    .map((c) => c.trim())
    .filter(Boolean);
  const filterText = query.get("filter");
  const snapshotId = query.get("snapshot");
  const arrow = wantsArrow(ctx);
  const result = await table
    .scan({
      ...(limit !== undefined ? { limit } : {}),
      ...(columns ? { columns } : {}),
      ...(filterText !== null ? { filter: parseFilter(filterText, table.schema) } : {}),
      ...(snapshotId !== null ? { snapshotId } : {}),
    })
    .toArrow();
  if (arrow) {
    const bytes = A.tableToIPC(result, "stream");
    res.writeHead(200, { "content-type": ARROW_STREAM, "content-length": bytes.length });
    res.end(bytes);
    return;
  }
  sendJson(res, 200, { table: table.identifier, rows: toObjects(result).map(jsonSafe) });
}

export const tableRoutes: Route[] = [
  {
    method: "GET",
    path: "/namespaces",
    mutating: false,
    summary: "namespaces and their tables",
    async handler({ state, res }) {
      const s = await state.storage.catalog.current();
      const namespaces = Object.values(s.namespaces).map((n) => ({
        name: n.name,
        createdMs: n.createdMs,
        tables: Object.values(s.tables)
          .filter((t) => t.namespace === n.name)
          .map((t) => t.name)
          .sort(),
      }));
      sendJson(res, 200, { namespaces });
    },
  },
  {
    method: "GET",
    path: "/tables",
    mutating: false,
    summary: "every table with its snapshot count, rows, live files and bytes",
    async handler({ state, res }) {
      const s = await state.storage.catalog.current();
      sendJson(res, 200, { tables: Object.values(s.tables).map(summary) });
    },
  },
  {
    method: "GET",
    path: "/tables/:ns/:table",
    mutating: false,
    summary: "one table's size and current snapshot",
    async handler(ctx) {
      sendJson(ctx.res, 200, summary(await tableOf(ctx)));
    },
  },
  {
    method: "GET",
    path: "/tables/:ns/:table/schema",
    mutating: false,
    summary: "the stored schema: user columns, then provenance columns",
    async handler(ctx) {
      const entry = await tableOf(ctx);
      const schema = storedTable(ctx.state.storage, entry).schema;
      sendJson(ctx.res, 200, {
        table: `${entry.namespace}.${entry.name}`,
        rowLineage: entry.rowLineage,
        schemaVersion: entry.schemas?.at(-1)?.id ?? 0,
        columns: schema.fields.map((f) => ({
          name: f.name,
          type: String(f.type),
          nullable: f.nullable,
          provenance: isProvenanceColumn(f.name),
        })),
      });
    },
  },
  {
    method: "GET",
    path: "/tables/:ns/:table/history",
    mutating: false,
    summary: "snapshots, oldest first",
    async handler(ctx) {
      const entry = await tableOf(ctx);
      const snapshots = entry.history.snapshots.map(({ addedFiles, removedFiles, ...s }) => ({
        ...s,
        addedFiles: addedFiles.length,
        removedFiles: removedFiles.length,
      }));
      sendJson(ctx.res, 200, { snapshots });
    },
  },
  {
    method: "GET",
    path: "/tables/:ns/:table/scan",
    mutating: false,
    summary:
      "rows as an Arrow IPC stream (Accept: application/vnd.apache.arrow.stream or format=arrow) or JSON; limit, columns, filter, snapshot",
    handler: scan,
  },
];
