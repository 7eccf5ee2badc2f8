// How commands print: aligned text tables for people; JSON, CSV or a Parquet file for scripts. Values are
// printed exactly: 64-bit integers in full, times as ISO-8601 UTC, nested values as JSON.
import { writeFile } from "node:fs/promises";
import type * as A from "apache-arrow";
import { encodeParquet } from "../parquet/parquet.js";
import { ioError } from "../storage/node/paths.js";
import { toObjects } from "../table/rows.js";
import { jsonSafe } from "../util/json-safe.js";

export { jsonSafe };

export type Out = (line: string) => void;

export type Format =
  | { kind: "text" }
  | { kind: "json" }
  | { kind: "csv" }
  | { kind: "parquet"; file: string };

/** One value as text: exact numbers, ISO times, JSON for nested values; null as `null`. */
export function cell(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return value;
  if (typeof value === "bigint" || typeof value === "number" || typeof value === "boolean")
    return String(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "Invalid Date" : value.toISOString();
  return JSON.stringify(jsonSafe(value));
}

const MAX_WIDTH = 48;

/** Rows under a header, each column as wide as its widest cell (cut at MAX_WIDTH with "…"). */
export function printTable(out: Out, header: readonly string[], rows: readonly (readonly string[])[]): void {
  const fit = (s: string) => {
    const flat = s.replace(/[\r\n\t]/g, " ");
    return flat.length > MAX_WIDTH ? `${flat.slice(0, MAX_WIDTH - 1)}…` : flat;
  };
  const cells = [header, ...rows].map((r) => r.map(fit));
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i]?.length ?? 0)));
  const line = (r: readonly string[]) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  out(line(cells[0]!));
  out(line(widths.map((w) => "-".repeat(w))));
  for (const r of cells.slice(1)) out(line(r));
}

/** A CSV field (RFC 4180): quoted when it holds a comma, quote or line break; null is empty. */
function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  const s = cell(value);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

export function printCsv(out: Out, header: readonly string[], rows: readonly (readonly unknown[])[]): void {
  out(header.map(csvField).join(","));
  for (const r of rows) out(r.map(csvField).join(","));
}

/** Writes a whole output file; a missing folder or a full disk is one line naming the file. */
export async function writeOutput(path: string, bytes: Uint8Array): Promise<void> {
  try {
    await writeFile(path, bytes);
  } catch (err) {
    throw ioError(err, `writing ${path}`);
  }
}

/** Prints an Arrow table in the chosen format (Parquet: written to its file, one line says so). */
export async function printArrow(out: Out, table: A.Table, format: Format): Promise<void> {
  const header = table.schema.fields.map((f) => f.name);
  if (format.kind === "parquet") {
    await writeOutput(format.file, await encodeParquet(table));
    out(`${table.numRows} rows -> ${format.file}`);
    return;
  }
  const objects = toObjects(table);
  if (format.kind === "json") {
    out(JSON.stringify(objects.map(jsonSafe)));
    return;
  }
  const rows = objects.map((o) => header.map((h) => o[h]));
  if (format.kind === "csv") printCsv(out, header, rows);
  else {
    printTable(
      out,
      header,
      rows.map((r) => r.map(cell)),
    );
    out(`(${table.numRows} row${table.numRows === 1 ? "" : "s"})`);
  }
}

/** Prints plain records (listings) in the chosen format; Parquet is not offered for them. */
export function printRecords(
  out: Out,
  header: readonly string[],
  records: readonly Record<string, unknown>[],
  format: Format,
): void {
  if (format.kind === "json") {
    out(JSON.stringify(records.map(jsonSafe)));
    return;
  }
  const rows = records.map((r) => header.map((h) => r[h]));
  if (format.kind === "csv") printCsv(out, header, rows);
  else
    printTable(
      out,
      header,
      rows.map((r) => r.map(cell)),
    );
}
