// `avalanche-web sql`: SQL over every table of a storage with native DuckDB — one statement from the
// command line, or an interactive prompt (multi-line statements ending with ";", history kept across
// sessions). Piped into, the prompt runs each statement and exits 1 if any of them failed.
import { appendFile, readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { AvaError, isAvaError } from "../errors.js";
import type { SqlDatabase } from "../sql/database.js";
import { openStorage } from "../sql-node.js";
import { parseArgs } from "./args.js";
import { FORMAT_OPTIONS, formatOf, openRoot, PARQUET_OPTION } from "./common.js";
import { type Format, type Out, printArrow } from "./output.js";
import { SQL_HELP, UsageError, wantsHelp } from "./usage.js";

/** `--at ns.table=SNAPSHOT` options as SnapshotPins. */
function pinsOf(values: readonly string[]): Record<string, string> {
  const pins: Record<string, string> = {};
  for (const v of values) {
    const eq = v.indexOf("=");
    if (eq <= 0 || eq === v.length - 1)
      throw new UsageError(`sql: --at wants NS.TABLE=SNAPSHOT, got ${JSON.stringify(v)}`, SQL_HELP);
    pins[v.slice(0, eq)] = v.slice(eq + 1);
  }
  return pins;
}

const historyFile = () => process.env.AVALANCHE_SQL_HISTORY || join(homedir(), ".avalanche-web_sql_history");
const MAX_HISTORY = 1000;

async function loadHistory(): Promise<string[]> {
  const text = await readFile(historyFile(), "utf8").catch(() => "");
  // readline wants the newest first; the file is oldest first, one statement per line.
  return text.split("\n").filter(Boolean).slice(-MAX_HISTORY).reverse();
}

const REPL_HELP = `Statements end with ";" and may span lines. Commands: .tables  .help  .quit (or Ctrl-D)`;

async function repl(db: SqlDatabase, format: Format, out: Out, err: Out): Promise<boolean> {
  const tty = process.stdin.isTTY === true;
  const rl = createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal: tty,
    ...(tty ? { history: await loadHistory(), historySize: MAX_HISTORY, removeHistoryDuplicates: true } : {}),
  });
  let buffer: string[] = [];
  let ok = true;
  const prompt = () => {
    if (!tty) return;
    rl.setPrompt(buffer.length === 0 ? "sql> " : "  -> ");
    rl.prompt();
  };
  if (tty) out(`avalanche-web sql — ${REPL_HELP}`);
  prompt();
  for await (const line of rl) {
    const trimmed = line.trim();
    if (buffer.length === 0 && trimmed.startsWith(".")) {
      if (trimmed === ".quit" || trimmed === ".exit") break;
      if (trimmed === ".help") out(REPL_HELP);
      else if (trimmed === ".tables")
        await run(
          db,
          "SELECT table_schema || '.' || table_name AS name FROM information_schema.tables WHERE table_schema NOT IN ('__ava', 'main') ORDER BY 1",
          format,
          out,
        );
      else {
        err(`unknown command ${trimmed} (${REPL_HELP})`);
        ok = false;
      }
      prompt();
      continue;
    }
    if (trimmed !== "" || buffer.length > 0) buffer.push(line);
    if (/;\s*$/.test(line)) {
      const statement = buffer.join("\n").trim();
      buffer = [];
      if (tty) await appendFile(historyFile(), `${statement.replace(/\s*\n\s*/g, " ")}\n`).catch(() => {});
      try {
        await run(db, statement, format, out);
      } catch (e) {
        if (!isAvaError(e)) throw e;
        err(`error: ${e.message.split("\n")[0]}`);
        ok = false;
      }
    }
    prompt();
  }
  rl.close();
  if (buffer.join("").trim() !== "") {
    err(`error: the input ended inside a statement (no ";"): ${buffer.join(" ").trim().slice(0, 60)}`);
    ok = false;
  }
  // Interactive errors were seen as they happened; piped ones decide the exit code.
  return ok || tty;
}

async function run(db: SqlDatabase, sql: string, format: Format, out: Out): Promise<void> {
  await printArrow(out, await db.query(sql.replace(/;\s*$/, "")), format);
}

/** Returns false when a piped statement failed (the caller exits 1). */
export async function sqlCommand(root: string, args: string[], out: Out, err: Out): Promise<boolean> {
  if (wantsHelp(args)) {
    out(SQL_HELP);
    return true;
  }
  const parsed = parseArgs(
    args,
    { ...FORMAT_OPTIONS, ...PARQUET_OPTION, at: { value: true, repeat: true } },
    "sql",
    SQL_HELP,
  );
  const format = formatOf(parsed, "sql", SQL_HELP);
  if (parsed.operands.length > 1)
    throw new UsageError("sql: give the statement as one argument (quote it)", SQL_HELP);
  const pins = pinsOf(parsed.all.get("at") ?? []);
  const storage = await openRoot(root);
  const base = await openStorage(storage);
  try {
    let db = base;
    try {
      db = base.at(pins);
    } catch (e) {
      if (isAvaError(e, "NOT_FOUND"))
        throw new AvaError("NOT_FOUND", `--at: ${e.message.replace(/^at\(\): /, "")}`);
      throw e;
    }
    const statement = parsed.operands[0];
    if (statement === undefined) return await repl(db, format, out, err);
    await run(db, statement, format, out);
    return true;
  } finally {
    await base.close();
  }
}
