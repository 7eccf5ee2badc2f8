// What the storage commands share: which storage (`--root DIR`, else $AVALANCHE_ROOT, else ./.avalanche),
// and which output format (`--json`, `--csv`, `--parquet FILE`).
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { AvaError } from "../errors.js";
import { nodeStorage } from "../storage/node/node-storage.js";
import type { Storage } from "../storage/types.js";
import type { OptionSpec, Parsed } from "./args.js";
import type { Format } from "./output.js";
import { UsageError } from "./usage.js";

export const DEFAULT_ROOT = "./.avalanche";

/** The storage folder the command works on. */
export function rootOf(explicit: string | undefined): string {
  return resolve(explicit ?? (process.env.AVALANCHE_ROOT || DEFAULT_ROOT));
}

/** Opens the storage at `root`, refusing a folder that does not exist (a typo must not read as "empty"). */
export async function openRoot(root: string): Promise<Storage> {
  const info = await stat(root).catch(() => undefined);
  if (!info?.isDirectory())
    throw new AvaError(
      "NOT_FOUND",
      `no storage at ${root} (give --root DIR or set AVALANCHE_ROOT; the default is ${DEFAULT_ROOT})`,
    );
  return nodeStorage({ root });
}

export const FORMAT_OPTIONS: Record<string, OptionSpec> = {
  json: {},
  csv: {},
};

export const PARQUET_OPTION: Record<string, OptionSpec> = { parquet: { value: true } };

/** The output format the options ask for (at most one of them). */
export function formatOf(parsed: Parsed, command: string, help: string): Format {
  const chosen = ["json", "csv", "parquet"].filter((k) => parsed.options.has(k));
  if (chosen.length > 1)
    throw new UsageError(`${command}: choose one of ${chosen.map((c) => `--${c}`).join(", ")}`, help);
  if (chosen[0] === "json") return { kind: "json" };
  if (chosen[0] === "csv") return { kind: "csv" };
  if (chosen[0] === "parquet") return { kind: "parquet", file: parsed.options.get("parquet")! };
  return { kind: "text" };
}

export const msText = (ms: number | undefined) =>
  ms === undefined ? "" : ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;

export const timeText = (ms: number | undefined) => (ms === undefined ? "" : new Date(ms).toISOString());
