// The command line's help texts, its exit codes and the one error it raises itself: wrong arguments.
import { readFileSync } from "node:fs";

/** Exit codes, as `--help` documents them. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

const EXIT_CODES = `exit codes:
  0  done (also when the reader of the output stops early, as in \`| head\`)
  1  failed: a file that is missing, unreadable or damaged, or bad input (one line on stderr)
  2  wrong arguments (the usage on stderr)`;

export const AVRO_HELP = `usage:
  avalanche-web avro cat FILE                 print each record as a line of Avro JSON
  avalanche-web avro info FILE                schema variant, codec, blocks, records, points per channel
  avalanche-web avro convert FILE OUT.parquet the long table of the file, as Parquet (zstd)
  avalanche-web avro write OUT.avro [--codec null|deflate|snappy] < records.jsonl
                                              Avro JSON lines (as cat prints them) to a file; snappy by default

${EXIT_CODES}`;

export const HELP = `avalanche-web — Avro stream telemetry files from the command line

${AVRO_HELP.replace(`\n\n${EXIT_CODES}`, "")}
  avalanche-web --help | -h                   this help (avalanche-web avro --help: the avro commands)
  avalanche-web --version | -v                the package's version

${EXIT_CODES}`;

/** Wrong arguments: the caller prints the message and `help` on stderr and exits with EXIT.usage. */
export class UsageError extends Error {
  override readonly name = "UsageError";
  constructor(
    message: string,
    readonly help: string,
  ) {
    super(message);
  }
}

export const isUsageError = (err: unknown): err is UsageError =>
  (err as { name?: unknown } | null)?.name === "UsageError";

export const wantsHelp = (args: readonly string[]) => args.some((a) => a === "--help" || a === "-h");

/** The version in the package's own package.json (two folders up from src/cli and from dist/cli alike). */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
  return String(pkg.version);
}
