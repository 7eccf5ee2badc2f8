// `avalanche-web worker --queue Q --module ./flow.js`: a process that runs the nodes a `bullmqExecutor`
// queues, for the workflows its modules export, until SIGINT or SIGTERM (which let running nodes finish).
// An uncaught error kills it, as it would any Node process, but first tells the runs waiting on its jobs why.
import { closePostgresPools } from "../storage/warehouse/pool-registry.js";
import { serveBullmq } from "../workflow/node/bullmq/serve.js";
import type { Workflow } from "../workflow/workflow.js";
import { intOption, parseArgs } from "./args.js";
import type { Out } from "./output.js";
import { UsageError, WORKER_HELP, wantsHelp } from "./usage.js";
import { loadWorkflowModule } from "./workflow-module.js";

export async function workerCommand(args: string[], out: Out, err: Out): Promise<boolean> {
  if (wantsHelp(args)) {
    out(WORKER_HELP);
    return true;
  }
  const parsed = parseArgs(
    args,
    {
      queue: { value: true },
      module: { value: true, repeat: true },
      redis: { value: true },
      prefix: { value: true },
      concurrency: { value: true },
      "lock-ms": { value: true },
      "stalled-ms": { value: true },
      "max-stalled": { value: true },
    },
    "worker",
    WORKER_HELP,
  );
  if (parsed.operands.length > 0) throw new UsageError("worker: takes no arguments", WORKER_HELP);
  const queue = parsed.options.get("queue");
  if (!queue) throw new UsageError("worker: which queue? (--queue Q)", WORKER_HELP);
  const modules = parsed.all.get("module") ?? [];
  if (modules.length === 0) throw new UsageError("worker: which workflows? (--module FILE)", WORKER_HELP);
  const workflows: Workflow[] = [];
  for (const file of modules) {
    const found = [...(await loadWorkflowModule(file)).workflows.values()];
    if (found.length === 0) throw new UsageError(`worker: module ${file} exports no workflow`, WORKER_HELP);
    workflows.push(...found);
  }
  const worker = serveBullmq({
    connection: parsed.options.get("redis") ?? (process.env.AVALANCHE_REDIS || "redis://127.0.0.1:6379"),
    queue,
    workflows,
    ...(parsed.options.has("prefix") ? { prefix: parsed.options.get("prefix")! } : {}),
    concurrency: intOption(parsed, "concurrency", 1, "worker", WORKER_HELP, 1),
    lockDurationMs: intOption(parsed, "lock-ms", 30_000, "worker", WORKER_HELP, 1),
    stalledIntervalMs: intOption(parsed, "stalled-ms", 30_000, "worker", WORKER_HELP, 1),
    maxStalledCount: intOption(parsed, "max-stalled", 1, "worker", WORKER_HELP),
    // a CLI user adds a workflow to a module, not to an API call
    toServeMore: `export it from ${modules.length > 1 ? "one of the modules" : "the module"} given with --module (${modules.join(", ")}) and restart this worker`,
  });
  process.once("uncaughtException", (e) => {
    const reason = `${e?.name ?? "Error"}: ${e?.message ?? String(e)}`;
    err(`avalanche-web worker: ${reason}`);
    const timer = setTimeout(() => process.exit(1), 1000);
    void worker.reportCrash(reason).finally(() => {
      clearTimeout(timer);
      process.exit(1);
    });
  });
  await worker.ready;
  out(
    `avalanche-web worker: queue ${queue}, pid ${process.pid}, workflows: ${workflows.map((w) => w.name).join(", ")}`,
  );
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      out(`${signal}: finishing running nodes`);
      worker
        .close()
        .catch((e) => err(`avalanche-web worker: ${(e as Error)?.message}`))
        // a warehouse's Postgres pools would keep the process alive
        .then(() => closePostgresPools())
        .then(resolve);
    };
    process.once("SIGINT", () => stop("SIGINT"));
    process.once("SIGTERM", () => stop("SIGTERM"));
  });
  out("stopped");
  return true;
}
