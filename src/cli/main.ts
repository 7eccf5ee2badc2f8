#!/usr/bin/env node
// The `avalanche-web` command. Help and the version go to stdout (exit 0); a failure is one line on stderr
// (the AvaError's message, never a stack trace) and exit 1; wrong arguments print the usage, exit 2.
// A reader that stops early (`| head`) ends the command quietly.
import { isAvaError } from "../errors.js";
import { avroCommand } from "./avro-commands.js";
import { rootOf } from "./common.js";
import { compactCommand, maintainCommand, vacuumCommand } from "./maintenance-commands.js";
import { runCommand, runsCommand } from "./runs-commands.js";
import { serveCommand } from "./serve-command.js";
import { sqlCommand } from "./sql-command.js";
import { tablesCommand } from "./tables-commands.js";
import { workerCommand } from "./worker-command.js";
import { EXIT, HELP, isUsageError, packageVersion, UsageError, wantsHelp } from "./usage.js";

type Out = (line: string) => void;

interface Context {
  root: string;
  out: Out;
  err: Out;
}

/** A command group: resolves to an exit code (false = failed, as a failed run). */
type Command = (args: string[], ctx: Context) => Promise<unknown>;

const COMMANDS: Record<string, Command> = {
  avro: (args, { out }) => avroCommand(args, out, process.stdin),
  tables: (args, { root, out }) => tablesCommand(root, args, out),
  sql: (args, { root, out, err }) => sqlCommand(root, args, out, err),
  runs: (args, { root, out }) => runsCommand(root, args, out),
  run: (args, { root, out }) => runCommand(root, "run", args, out),
  rerun: (args, { root, out }) => runCommand(root, "rerun", args, out),
  vacuum: (args, { root, out }) => vacuumCommand(root, args, out),
  serve: (args, { root, out, err }) => serveCommand(root, args, out, err),
  maintain: (args, { root, out }) => maintainCommand(root, args, out),
  compact: (args, { root, out }) => compactCommand(root, args, out),
  worker: (args, { out, err }) => workerCommand(args, out, err),
};

/** `--root DIR` / `--root=DIR` may stand anywhere on the line; the rest goes to the command. */
function takeRoot(argv: readonly string[]): { root: string | undefined; rest: string[] } {
  const rest: string[] = [];
  let root: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    if (a === "--root" || a.startsWith("--root=")) {
      const value = a === "--root" ? argv[++i] : a.slice("--root=".length);
      if (value === undefined || value === "") throw new UsageError("--root needs a folder", HELP);
      root = value;
      continue;
    }
    rest.push(a);
  }
  return { root, rest };
}

async function main(argv: string[]): Promise<number> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const err = (line: string) => process.stderr.write(`${line}\n`);
  const { root, rest } = takeRoot(argv);
  const [group, ...args] = rest;
  const command = group === undefined ? undefined : COMMANDS[group];
  if (command) {
    const code = await command(args, { root: rootOf(root), out, err });
    return code === false ? EXIT.failed : typeof code === "number" ? code : EXIT.ok;
  }
  if (group === "--version" || group === "-v") {
    out(packageVersion());
    return EXIT.ok;
  }
  if (wantsHelp(rest)) {
    out(HELP);
    return EXIT.ok;
  }
  process.stderr.write(
    `avalanche-web: ${group === undefined ? "which command?" : `unknown command ${group}`}\n\n${HELP}\n`,
  );
  return EXIT.usage;
}

// EPIPE: whoever reads our output has gone (`avalanche-web avro cat big.avro | head`): nothing more to say.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE") process.exit(EXIT.ok);
  process.stderr.write(`avalanche-web: writing the output: ${err.message}\n`);
  process.exit(EXIT.failed);
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (isUsageError(err)) {
      process.stderr.write(`avalanche-web: ${err.message}\n\n${err.help}\n`);
      process.exitCode = EXIT.usage;
      return;
    }
    const message = isAvaError(err)
      ? err.message
      : `unexpected error: ${(err as Error)?.message ?? String(err)}`;
    process.stderr.write(`avalanche-web: ${message.split("\n")[0]}\n`);
    process.exitCode = EXIT.failed;
  },
);
