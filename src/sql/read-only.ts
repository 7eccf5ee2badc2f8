// Whether a SQL text is one statement that only reads: what a server accepts from the network. DuckDB is
// confined anyway (no file outside the storage, no extensions, locked settings); this keeps a query from
// dropping or replacing the views other queries rely on.

/** Statements that cannot change what the views and internal tables are. */
export const READ_ONLY =
  /^\s*(\(\s*)*(select|with|from|values|describe|show|explain|summarize|pivot|unpivot|table)\b/i;

/** `sql` without its string literals, quoted names and comments (so a ";" inside them is not a separator). */
function code(sql: string): string {
  return sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\/\*[\s\S]*?\*\//g, " ");
}

/** True for exactly one statement (a trailing ";" allowed) of a read-only kind. */
export function isReadOnlySql(sql: string): boolean {
  if (typeof sql !== "string") return false;
  const text = code(sql).replace(/[\s;]+$/, "");
  return !text.includes(";") && READ_ONLY.test(text);
}
