// Reading back the runs a storage's catalog recorded: for listings, progress pages, and reruns.
import { AvaError } from "../errors.js";
import type { RunRecord } from "../storage/catalog/model.js";
import type { Storage } from "../storage/types.js";

/** Recorded runs, oldest first; optionally of one workflow. */
export async function listRuns(
  storage: Storage,
  { workflowName }: { workflowName?: string } = {},
): Promise<RunRecord[]> {
  const runs = (await storage.catalog.current()).runs.list();
  return workflowName === undefined ? runs : runs.filter((r) => r.workflowName === workflowName);
}

export async function getRun(storage: Storage, runId: string): Promise<RunRecord> {
  const run = (await storage.catalog.current()).runs.get(runId);
  if (!run) throw new AvaError("NOT_FOUND", `no run ${runId} is recorded in this storage`);
  return run;
}
