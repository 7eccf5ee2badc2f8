// Reading back the runs a storage's catalog recorded: for listings, progress pages, and reruns.
import { AvaError } from "../errors.js";
import type { RunRecord } from "../storage/catalog/model.js";
import type { Storage } from "../storage/types.js";

/**
 * A run recorded as running whose lease ran out: its process died without recording an end (a live run
 * renews its lease every quarter of it, so it never gets here). Records written before leases stay as they are.
 */
function withLiveness(run: RunRecord, now: number): RunRecord {
  return run.status === "running" && run.leaseUntilMs !== undefined && run.leaseUntilMs < now
    ? { ...run, status: "abandoned" }
    : run;
}

/** Recorded runs, oldest first; optionally of one workflow. A run whose process died is `abandoned`. */
export async function listRuns(
  storage: Storage,
  { workflowName }: { workflowName?: string } = {},
): Promise<RunRecord[]> {
  const now = Date.now();
  const runs = (await storage.catalog.current()).runs.list().map((r) => withLiveness(r, now));
  return workflowName === undefined ? runs : runs.filter((r) => r.workflowName === workflowName);
}

export async function getRun(storage: Storage, runId: string): Promise<RunRecord> {
  const run = (await storage.catalog.current()).runs.get(runId);
  if (!run) throw new AvaError("NOT_FOUND", `no run ${runId} is recorded in this storage`);
  return withLiveness(run, Date.now());
}
