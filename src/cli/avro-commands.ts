// `avalanche-web avro …`: inspect, print, convert and write Avro stream files from the command line.
import { writeFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import { type AvroCodec, CODECS, checkCodec } from "../avro/codecs.js";
import { encodeAvroStream } from "../avro/encode.js";
import { recordFromJson, recordToJson } from "../avro/json.js";
import { openAvroStream } from "../avro/read.js";
import type { AvroStreamRecord } from "../avro/record.js";
import { avroStreamToArrow } from "../avro/to-arrow.js";
import { encodeParquet } from "../parquet/parquet.js";
import { nodeFileSource } from "../storage/node/avro-files.js";
import { ioError } from "../storage/node/paths.js";
import { AVRO_HELP, UsageError, wantsHelp } from "./usage.js";

const open = (path: string) => openAvroStream(nodeFileSource(path));

/** Writes a whole output file; a missing folder or a full disk is one line naming the file. */
async function writeOutput(path: string, bytes: Uint8Array): Promise<void> {
  try {
    await writeFile(path, bytes);
  } catch (err) {
    throw ioError(err, `writing ${path}`);
  }
}

async function cat(path: string, out: (line: string) => void): Promise<void> {
  for await (const r of (await open(path)).records()) out(recordToJson(r));
}

async function info(path: string, out: (line: string) => void): Promise<void> {
  const file = await open(path);
  const points = new Map<string, number>();
  let records = 0;
  for await (const r of file.records()) {
    records++;
    points.set(r.channel, (points.get(r.channel) ?? 0) + r.timestamps.length);
  }
  out(`schema: ${file.schema.variant} (values: ${file.schema.branches.join(", ")})`);
  out(`codec: ${file.codec}`);
  out(`blocks: ${file.blocksRead}`);
  out(`records: ${records}`);
  out(`points: ${[...points.values()].reduce((a, b) => a + b, 0)}`);
  for (const [channel, n] of [...points].sort(([a], [b]) => (a < b ? -1 : 1))) out(`  ${channel}: ${n}`);
}

async function convert(path: string, target: string, out: (line: string) => void): Promise<void> {
  const table = await avroStreamToArrow(nodeFileSource(path));
  await writeOutput(target, await encodeParquet(table));
  out(`${table.numRows} points -> ${target}`);
}

async function write(target: string, codec: AvroCodec, input: NodeJS.ReadableStream): Promise<void> {
  const records: AvroStreamRecord[] = [];
  let n = 0;
  for await (const line of createInterface({ input })) {
    n++;
    if (line.trim()) records.push(recordFromJson(line, `line ${n}`));
  }
  await writeOutput(target, await encodeAvroStream(records, { codec }));
}

function codecOption(name: string | undefined): AvroCodec {
  try {
    return checkCodec(name ?? "", "--codec");
  } catch (err) {
    throw new UsageError(`avro write: ${(err as Error).message}`, AVRO_HELP);
  }
}

/**
 * Runs `avro <command> …`: `--help` anywhere prints the avro help; wrong arguments throw a UsageError,
 * failures an AvaError, for the caller to report.
 */
export async function avroCommand(
  args: string[],
  out: (line: string) => void,
  stdin: NodeJS.ReadableStream,
): Promise<void> {
  if (wantsHelp(args)) return out(AVRO_HELP);
  const [command, ...rest] = args;
  const codecAt = command === "write" ? rest.indexOf("--codec") : -1;
  // Operands are what is neither an option nor --codec's value.
  const isCodec = (i: number) => codecAt >= 0 && (i === codecAt || i === codecAt + 1);
  const files = rest.filter((a, i) => !a.startsWith("-") && !isCodec(i));
  const unknown = rest.find((a, i) => a.startsWith("-") && !isCodec(i));
  const usage = (what: string) => new UsageError(`avro${command ? ` ${command}` : ""}: ${what}`, AVRO_HELP);
  if (unknown !== undefined) throw usage(`unknown option ${unknown}`);
  const operands = (n: number, names: string) => {
    if (files.length !== n) throw usage(`expects ${names}, got ${files.length} argument(s)`);
  };
  switch (command) {
    case "cat":
      operands(1, "FILE");
      return cat(files[0]!, out);
    case "info":
      operands(1, "FILE");
      return info(files[0]!, out);
    case "convert":
      operands(2, "FILE OUT.parquet");
      return convert(files[0]!, files[1]!, out);
    case "write": {
      operands(1, "OUT.avro");
      return write(files[0]!, codecAt >= 0 ? codecOption(rest[codecAt + 1]) : "snappy", stdin);
    }
    case undefined:
      throw usage("which command? cat, info, convert or write");
    default:
      throw usage(`unknown command ${command}`);
  }
}
