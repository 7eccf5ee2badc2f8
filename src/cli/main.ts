#!/usr/bin/env node
// The `avalanche-web` command. Errors end the process with exit code 1 and one line on stderr (the
// AvaError's message), never a stack trace.
import { isAvaError } from "../errors.js";
import { AVRO_USAGE, avroCommand } from "./avro-commands.js";

async function main(argv: string[]): Promise<number> {
  const [group, ...rest] = argv;
  const out = (line: string) => process.stdout.write(`${line}\n`);
  if (group === "avro") {
    await avroCommand(rest, out, process.stdin);
    return 0;
  }
  process.stderr.write(`${AVRO_USAGE}\n`);
  return group === undefined || group === "--help" ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const message = isAvaError(err)
      ? err.message
      : `unexpected error: ${(err as Error)?.message ?? String(err)}`;
    process.stderr.write(`avalanche-web: ${message.split("\n")[0]}\n`);
    process.exitCode = 1;
  },
);
