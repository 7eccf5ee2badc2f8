// `avalanche-web maintain`, `compact` and `vacuum`: storage upkeep from the command line, the same calls
// as ns.maintain(), compactTable() and vacuum() with their defaults.
import { compactTable } from "../table/compact.js";
import { maintain } from "../table/maintain.js";
import { findTable } from "../table/stored-table.js";
import { vacuum } from "../table/vacuum.js";
import { intOption, parseArgs } from "./args.js";
import { openRoot } from "./common.js";
import type { Out } from "./output.js";
import { MAINTENANCE_HELP, UsageError, wantsHelp } from "./usage.js";

export async function vacuumCommand(root: string, args: string[], out: Out): Promise<void> {
  if (wantsHelp(args)) return out(MAINTENANCE_HELP);
  const parsed = parseArgs(
    args,
    { json: {}, "older-than-ms": { value: true }, namespace: { value: true } },
    "vacuum",
    MAINTENANCE_HELP,
  );
  if (parsed.operands.length > 0) throw new UsageError("vacuum: takes no arguments", MAINTENANCE_HELP);
  const olderThanMs = intOption(parsed, "older-than-ms", 3_600_000, "vacuum", MAINTENANCE_HELP);
  const namespace = parsed.options.get("namespace");
  const { removed } = await vacuum(await openRoot(root), {
    olderThanMs,
    ...(namespace !== undefined ? { namespace } : {}),
  });
  if (parsed.options.has("json")) return out(JSON.stringify({ removed }));
  for (const path of removed) out(`removed ${path}`);
  out(`${removed.length} file${removed.length === 1 ? "" : "s"} removed`);
}

export async function maintainCommand(root: string, args: string[], out: Out): Promise<void> {
  if (wantsHelp(args)) return out(MAINTENANCE_HELP);
  const parsed = parseArgs(
    args,
    {
      json: {},
      namespace: { value: true },
      "grace-ms": { value: true },
      "retain-ms": { value: true },
      "min-snapshots": { value: true },
      "no-compact": {},
      "no-expire": {},
    },
    "maintain",
    MAINTENANCE_HELP,
  );
  if (parsed.operands.length > 0) throw new UsageError("maintain: takes no arguments", MAINTENANCE_HELP);
  const int = (name: string, fallback: number, min = 0) =>
    intOption(parsed, name, fallback, "maintain", MAINTENANCE_HELP, min);
  const retain = parsed.options.has("no-expire")
    ? false
    : { maxAgeMs: int("retain-ms", 5 * 86_400_000), minSnapshots: int("min-snapshots", 1, 1) };
  const result = await maintain(await openRoot(root), parsed.options.get("namespace"), {
    graceMs: int("grace-ms", 3_600_000),
    retain,
    ...(parsed.options.has("no-compact") ? { compact: false as const } : {}),
  });
  if (parsed.options.has("json")) return out(JSON.stringify(result));
  out(`compacted ${result.filesCompacted} files into ${result.filesWritten}`);
  out(`flushed ${result.inlinedFlushed} inlined appends`);
  out(`expired ${result.snapshotsExpired} snapshots`);
  out(`deleted ${result.filesDeleted} data files`);
  out(`removed ${result.catalogEntriesRemoved} catalog log entries`);
}

export async function compactCommand(root: string, args: string[], out: Out): Promise<void> {
  if (wantsHelp(args)) return out(MAINTENANCE_HELP);
  const parsed = parseArgs(
    args,
    { json: {}, "target-bytes": { value: true }, "min-files": { value: true } },
    "compact",
    MAINTENANCE_HELP,
  );
  if (parsed.operands.length !== 1) throw new UsageError("compact: wants one NS.TABLE", MAINTENANCE_HELP);
  // Wrong arguments are refused before the storage is opened.
  const targetFileBytes = intOption(parsed, "target-bytes", 16 * 1024 * 1024, "compact", MAINTENANCE_HELP, 1);
  const minFiles = intOption(parsed, "min-files", 2, "compact", MAINTENANCE_HELP, 2);
  const storage = await openRoot(root);
  const entry = findTable(await storage.catalog.current(), parsed.operands[0]!);
  const result = await compactTable(storage, entry.namespace, entry.name, { targetFileBytes, minFiles });
  if (parsed.options.has("json")) return out(JSON.stringify(result));
  out(
    result.snapshotId === undefined
      ? `${entry.namespace}.${entry.name}: nothing to compact (${result.filesBefore} files)`
      : `${entry.namespace}.${entry.name}: ${result.filesRemoved} files merged into ${result.filesAdded}; ${result.filesBefore} → ${result.filesAfter} files (snapshot ${result.snapshotId})`,
  );
}
