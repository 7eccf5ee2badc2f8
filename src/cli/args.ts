// A small argument parser for the command groups: `--name value`, `--name=value`, boolean flags, short
// aliases, and operands; anything it does not know is a UsageError naming it.
import { UsageError } from "./usage.js";

export interface OptionSpec {
  /** Takes a value (`--limit 20`), or is a flag (`--json`). */
  value?: boolean;
  /** May be given several times (values collected in order). */
  repeat?: boolean;
  /** A one-letter alias, without the dash. */
  short?: string;
}

export interface Parsed {
  operands: string[];
  /** Flags as "true"; repeated options' values joined in `all`. */
  options: Map<string, string>;
  all: Map<string, string[]>;
}

export function parseArgs(
  args: readonly string[],
  spec: Record<string, OptionSpec>,
  command: string,
  help: string,
): Parsed {
  const operands: string[] = [];
  const options = new Map<string, string>();
  const all = new Map<string, string[]>();
  const byShort = new Map(
    Object.entries(spec).flatMap(([name, s]) => (s.short ? [[s.short, name] as const] : [])),
  );
  const usage = (what: string) => new UsageError(`${command}: ${what}`, help);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-" || /^-\d/.test(arg)) {
      operands.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const raw = arg.startsWith("--") ? arg.slice(2, eq < 0 ? undefined : eq) : arg.slice(1);
    const name = arg.startsWith("--") ? raw : byShort.get(raw);
    const s = name === undefined ? undefined : spec[name];
    if (name === undefined || !s) throw usage(`unknown option ${arg}`);
    let value = "true";
    if (s.value) {
      if (eq >= 0 && arg.startsWith("--")) value = arg.slice(eq + 1);
      else if (i + 1 < args.length) value = args[++i]!;
      else throw usage(`${arg} needs a value`);
    } else if (eq >= 0) throw usage(`${arg.slice(0, eq)} takes no value`);
    if (options.has(name) && !s.repeat) throw usage(`--${name} given twice`);
    options.set(name, value);
    all.set(name, [...(all.get(name) ?? []), value]);
  }
  return { operands, options, all };
}

/** A whole number ≥ min from an option, or a UsageError naming it. */
export function intOption(
  parsed: Parsed,
  name: string,
  fallback: number,
  command: string,
  help: string,
  min = 0,
): number {
  const text = parsed.options.get(name);
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < min)
    throw new UsageError(
      `${command}: --${name} must be a whole number ≥ ${min}, got ${JSON.stringify(text)}`,
      help,
    );
  return n;
}
