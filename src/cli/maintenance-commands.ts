// `avalanche-web vacuum`: storage upkeep from the command line. (`maintain` and `compact` — issue 14 —
// are wired into main.ts's command table by the lead at merge.)
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
