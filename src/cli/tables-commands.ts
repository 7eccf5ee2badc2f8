// `avalanche-web tables …`: what a storage holds — its tables, one table's schema and size, its snapshot
// history, and its first rows (at any snapshot, filtered) — read from the catalog, no declarations needed.
import { isProvenanceColumn } from "../schema/provenance.js";
import type { TableState } from "../storage/catalog/state.js";
import { parseFilter } from "../table/filter-text.js";
import { findTable, storedTable } from "../table/stored-table.js";
import { intOption, parseArgs } from "./args.js";
import { FORMAT_OPTIONS, formatOf, openRoot, PARQUET_OPTION, timeText } from "./common.js";
import { cell, type Out, printArrow, printRecords, printTable } from "./output.js";
import { TABLES_HELP, UsageError, wantsHelp } from "./usage.js";

function sizes(entry: TableState) {
  const live = entry.history.liveFiles;
  return {
    snapshots: entry.history.length,
    rows: entry.history.current?.totalRows ?? 0,
    files: live.length,
    bytes: live.reduce((n, f) => n + f.sizeBytes, 0),
  };
}

async function list(root: string, args: string[], out: Out): Promise<void> {
  const parsed = parseArgs(args, FORMAT_OPTIONS, "tables ls", TABLES_HELP);
  if (parsed.operands.length > 0) throw new UsageError("tables ls: takes no arguments", TABLES_HELP);
  const state = await (await openRoot(root)).catalog.current();
  const records = Object.values(state.tables)
    .sort((a, b) => (a.namespace + a.name < b.namespace + b.name ? -1 : 1))
    .map((t) => ({
      table: `${t.namespace}.${t.name}`,
      ...sizes(t),
      updated: timeText(t.history.current?.timestampMs ?? t.createdMs),
    }));
  printRecords(
    out,
    ["table", "snapshots", "rows", "files", "bytes", "updated"],
    records,
    formatOf(parsed, "tables ls", TABLES_HELP),
  );
}

async function show(root: string, args: string[], out: Out): Promise<void> {
  const parsed = parseArgs(args, { json: {} }, "tables show", TABLES_HELP);
  const id = oneTable(parsed.operands, "tables show");
  const storage = await openRoot(root);
  const entry = findTable(await storage.catalog.current(), id);
  const schema = storedTable(storage, entry).schema;
  const columns = schema.fields.map((f) => ({
    name: f.name,
    type: String(f.type),
    nullable: f.nullable,
    provenance: isProvenanceColumn(f.name),
  }));
  const info = {
    table: id,
    uuid: entry.uuid,
    created: timeText(entry.createdMs),
    rowLineage: entry.rowLineage,
    schemaVersion: entry.schemas?.at(-1)?.id ?? 0,
    ...sizes(entry),
    currentSnapshot: entry.history.current?.id ?? null,
    columns,
  };
  if (parsed.options.has("json")) return out(JSON.stringify(info));
  const { columns: _, ...summary } = info;
  const width = Math.max(...Object.keys(summary).map((k) => k.length));
  for (const [k, v] of Object.entries(summary)) out(`${`${k}:`.padEnd(width + 2)}${cell(v)}`);
  out("");
  printTable(
    out,
    ["column", "type", "nullable", "provenance"],
    columns.map((c) => [c.name, c.type, c.nullable ? "yes" : "no", c.provenance ? "yes" : ""]),
  );
}

async function history(root: string, args: string[], out: Out): Promise<void> {
  const parsed = parseArgs(args, FORMAT_OPTIONS, "tables history", TABLES_HELP);
  const id = oneTable(parsed.operands, "tables history");
  const entry = findTable(await (await openRoot(root)).catalog.current(), id);
  const records = entry.history.snapshots.map((s) => ({
    snapshot: s.id,
    seq: s.sequenceNumber,
    time: timeText(s.timestampMs),
    operation: s.operation,
    addedRows: s.addedRows,
    removedRows: s.removedRows,
    totalRows: s.totalRows,
    addedFiles: s.addedFiles.length,
    run: s.runId ?? "",
    node: s.nodeSlug ?? "",
  }));
  printRecords(
    out,
    [
      "snapshot",
      "seq",
      "time",
      "operation",
      "addedRows",
      "removedRows",
      "totalRows",
      "addedFiles",
      "run",
      "node",
    ],
    records,
    formatOf(parsed, "tables history", TABLES_HELP),
  );
}

async function head(root: string, args: string[], out: Out): Promise<void> {
  const command = "tables head";
  const parsed = parseArgs(
    args,
    {
      ...FORMAT_OPTIONS,
      ...PARQUET_OPTION,
      n: { value: true, short: "n" },
      limit: { value: true },
      at: { value: true },
      where: { value: true },
      columns: { value: true },
    },
    command,
    TABLES_HELP,
  );
  const id = oneTable(parsed.operands, command);
  if (parsed.options.has("n") && parsed.options.has("limit"))
    throw new UsageError(`${command}: give -n or --limit, not both`, TABLES_HELP);
  const limit = intOption(parsed, parsed.options.has("limit") ? "limit" : "n", 20, command, TABLES_HELP);
  const format = formatOf(parsed, command, TABLES_HELP);
  const storage = await openRoot(root);
  const table = storedTable(storage, findTable(await storage.catalog.current(), id));
  const whereText = parsed.options.get("where");
  const columns = parsed.options
    .get("columns")
    ?.split(",")
    .map((c) => c.trim());
  const at = parsed.options.get("at");
  const scan = table.scan({
    limit,
    ...(columns ? { columns } : {}),
    ...(whereText !== undefined ? { filter: parseFilter(whereText, table.schema) } : {}),
    ...(at !== undefined ? { snapshotId: at } : {}),
  });
  await printArrow(out, await scan.toArrow(), format);
}

function oneTable(operands: string[], command: string): string {
  if (operands.length !== 1) throw new UsageError(`${command}: expects NAMESPACE.TABLE`, TABLES_HELP);
  return operands[0]!;
}

export async function tablesCommand(root: string, args: string[], out: Out): Promise<void> {
  if (wantsHelp(args)) return out(TABLES_HELP);
  const [sub, ...rest] = args;
  switch (sub) {
    case undefined:
    case "ls":
      return list(root, rest, out);
    case "show":
      return show(root, rest, out);
    case "history":
      return history(root, rest, out);
    case "head":
      return head(root, rest, out);
    default:
      if (sub.startsWith("-")) return list(root, args, out);
      throw new UsageError(`tables: unknown command ${sub}`, TABLES_HELP);
  }
}
