// `avalanche-web serve`: the storage over HTTP (see serve/server.ts) until SIGINT or SIGTERM, which drain
// in-flight requests and runs before the process ends.
import { startServer } from "../serve/server.js";
import { nodeStorage } from "../storage/node/node-storage.js";
import type { Workflow } from "../workflow/workflow.js";
import { intOption, parseArgs } from "./args.js";
import type { Out } from "./output.js";
import { packageVersion, SERVE_HELP, UsageError, wantsHelp } from "./usage.js";
import { loadWorkflowModule } from "./workflow-module.js";

export async function serveCommand(root: string, args: string[], out: Out, err: Out): Promise<boolean> {
  if (wantsHelp(args)) {
    out(SERVE_HELP);
    return true;
  }
  const parsed = parseArgs(
    args,
    {
      port: { value: true },
      host: { value: true },
      token: { value: true },
      module: { value: true, repeat: true },
      "max-body": { value: true },
      "max-ingest": { value: true },
      "drain-ms": { value: true },
    },
    "serve",
    SERVE_HELP,
  );
  if (parsed.operands.length > 0) throw new UsageError("serve: takes no arguments", SERVE_HELP);
  const port = intOption(parsed, "port", 8080, "serve", SERVE_HELP);
  if (port > 65535) throw new UsageError(`serve: --port ${port} is not a port`, SERVE_HELP);
  const maxBodyBytes = intOption(parsed, "max-body", 1 << 20, "serve", SERVE_HELP, 1);
  const maxIngestBytes = intOption(parsed, "max-ingest", 64 << 20, "serve", SERVE_HELP, 1);
  const drainMs = intOption(parsed, "drain-ms", 30_000, "serve", SERVE_HELP);
  const token = parsed.options.get("token") ?? (process.env.AVALANCHE_TOKEN || undefined);
  const workflows: Workflow[] = [];
  for (const file of parsed.all.get("module") ?? [])
    workflows.push(...(await loadWorkflowModule(file)).workflows.values());
  const server = await startServer({
    storage: nodeStorage({ root }),
    host: parsed.options.get("host") ?? "127.0.0.1",
    port,
    ...(token !== undefined ? { token } : {}),
    workflows,
    limits: { maxBodyBytes, maxIngestBytes },
    drainMs,
    version: packageVersion(),
    onError: (e) => err(`avalanche-web serve: ${(e as Error)?.message ?? String(e)}`),
  });
  const scheduled = workflows
    .filter((w) => w.schedule)
    .map((w) => `${w.name} (${w.schedule!.cron.expression})`);
  out(`avalanche-web serve: ${root} on ${server.url}`);
  if (workflows.length > 0) out(`workflows: ${workflows.map((w) => w.name).join(", ")}`);
  if (scheduled.length > 0) out(`scheduled: ${scheduled.join(", ")}`);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      out(`${signal}: finishing in-flight requests and runs`);
      server.close().then(resolve, (e) => {
        err(`avalanche-web serve: ${(e as Error)?.message}`);
        resolve();
      });
    };
    process.once("SIGINT", () => stop("SIGINT"));
    process.once("SIGTERM", () => stop("SIGTERM"));
  });
  out("stopped");
  return true;
}
