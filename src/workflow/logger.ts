// `ava.logger()` in `inject`: a node's logger (the original's Logger provider). Its lines travel back to
// the run as they are written — from a worker too — and are kept with the node in the run record, so
// `getRun(storage, runId).nodes[slug].logs` tells what a node said, long after the run.
import { AvaError } from "../errors.js";

export type LogLevel = "debug" | "info" | "warn" | "error";

export interface LogLine {
  level: LogLevel;
  message: string;
  timestampMs: number;
  /** Structured-cloneable details given with the line. */
  fields?: Record<string, unknown>;
}

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const LOGGER = Symbol.for("avalanche.logger");

/** Lines a node keeps in its run record; past it, lines are counted, not kept. */
export const MAX_LOG_LINES = 500;
/** Characters a message keeps; the rest is cut (a log is no place for a payload). */
export const MAX_LOG_MESSAGE = 2000;

export interface LoggerMarker {
  readonly marker: typeof LOGGER;
  readonly level: LogLevel;
}

/** In `inject`: a logger whose lines at `level` and above are kept with the run (default "info"). */
export function logger({ level = "info" }: { level?: LogLevel } = {}): LoggerMarker {
  if (!(level in LEVELS))
    throw new AvaError(
      "INVALID_ARGUMENT",
      `ava.logger level ${JSON.stringify(level)}: use debug, info, warn or error`,
    );
  return Object.freeze({ marker: LOGGER, level });
}

export function isLoggerMarker(v: unknown): v is LoggerMarker {
  return (v as LoggerMarker | null)?.marker === LOGGER;
}

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** A logger that hands each line at `level` or above to `sink`. */
export function createLogger(level: LogLevel, sink: (line: LogLine) => void): Logger {
  const write = (at: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
    if (LEVELS[at] < LEVELS[level]) return;
    const text = String(message);
    const line: LogLine = {
      level: at,
      message: text.length > MAX_LOG_MESSAGE ? `${text.slice(0, MAX_LOG_MESSAGE)}…` : text,
      timestampMs: Date.now(),
    };
    if (fields !== undefined) line.fields = asJson(fields);
    sink(line);
  };
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}

/** Fields as plain JSON (bigints as text): lines cross workers and are stored in the catalog's run record. */
function asJson(fields: Record<string, unknown>): Record<string, unknown> {
  try {
    const text = JSON.stringify(fields, (_key, v) => (typeof v === "bigint" ? v.toString() : v));
    const parsed: unknown = text === undefined ? {} : JSON.parse(text);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : { value: parsed };
  } catch (err) {
    return { unwritable: `these fields are not JSON: ${(err as Error).message}` };
  }
}
