// `avalanche-web avro …`: inspect, print, convert and write Avro stream files from the command line.
import { createReadStream } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import { type AvroCodec, CODECS, checkCodec } from "../avro/codecs.js";
import { encodeAvroStream } from "../avro/encode.js";
import { recordFromJson, recordToJson } from "../avro/json.js";
import { openAvroStream } from "../avro/read.js";
import type { AvroStreamRecord } from "../avro/record.js";
import { avroStreamToArrow } from "../avro/to-arrow.js";
import { AvaError } from "../errors.js";
import { encodeParquet } from "../parquet/parquet.js";

export const AVRO_USAGE = `usage:
  avalanche-web avro cat FILE                 print each record as a line of Avro JSON
  avalanche-web avro info FILE                schema variant, codec, blocks, records, points per channel
  avalanche-web avro convert FILE OUT.parquet the long table of the file, as Parquet (zstd)
  avalanche-web avro write OUT.avro [--codec null|deflate|snappy] < records.jsonl`;

const open = (path: string) => openAvroStream(createReadStream(path) as AsyncIterable<Uint8Array>);

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
  const table = await avroStreamToArrow(createReadStream(path) as AsyncIterable<Uint8Array>);
  await writeFile(target, await encodeParquet(table));
  out(`${table.numRows} points -> ${target}`);
}

async function write(target: string, codec: AvroCodec, input: NodeJS.ReadableStream): Promise<void> {
  const records: AvroStreamRecord[] = [];
  let n = 0;
  for await (const line of createInterface({ input })) {
    n++;
    if (line.trim()) records.push(recordFromJson(line, `line ${n}`));
  }
  await writeFile(target, await encodeAvroStream(records, { codec }));
}

/** Runs `avro <command> …`; throws AvaError (or a usage error) for the caller to report. */
export async function avroCommand(
  args: string[],
  out: (line: string) => void,
  stdin: NodeJS.ReadableStream,
): Promise<void> {
  const [command, ...rest] = args;
  const files = rest.filter((a) => !a.startsWith("--"));
  const usage = () =>
    new AvaError("INVALID_ARGUMENT", `avro ${command ?? ""}: wrong arguments\n${AVRO_USAGE}`);
  switch (command) {
    case "cat":
      if (files.length !== 1) throw usage();
      return cat(files[0]!, out);
    case "info":
      if (files.length !== 1) throw usage();
      return info(files[0]!, out);
    case "convert":
      if (files.length !== 2) throw usage();
      return convert(files[0]!, files[1]!, out);
    case "write": {
      const at = rest.indexOf("--codec");
      const codec =
        at >= 0 ? checkCodec(rest[at + 1] ?? "", `--codec (one of ${CODECS.join(", ")})`) : "snappy";
      const target = rest.find((a, i) => !a.startsWith("--") && rest[i - 1] !== "--codec");
      if (!target) throw usage();
      return write(target, codec, stdin);
    }
    default:
      throw usage();
  }
}
