#!/usr/bin/env node
// The `avalanche-web` command. Help and the version go to stdout (exit 0); a failure is one line on stderr
// (the AvaError's message, never a stack trace) and exit 1; wrong arguments print the usage, exit 2.
// A reader that stops early (`| head`) ends the command quietly.
import { isAvaError } from "../errors.js";
import { avroCommand } from "./avro-commands.js";
import { EXIT, HELP, isUsageError, packageVersion, wantsHelp } from "./usage.js";

async function main(argv: string[]): Promise<number> {
  const [group, ...rest] = argv;
  const out = (line: string) => process.stdout.write(`${line}\n`);
  if (group === "avro") {
    await avroCommand(rest, out, process.stdin);
    return EXIT.ok;
  }
  if (group === "--version" || group === "-v") {
    out(packageVersion());
    return EXIT.ok;
  }
  if (wantsHelp(argv)) {
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
