// Workflows from a module file, for `run`, `rerun` and `serve --module`: the module is imported once and
// its exported workflows are found by export name or by workflow name.
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { AvaError } from "../errors.js";
import { isWorkflow, type Workflow } from "../workflow/workflow.js";

export interface WorkflowModule {
  exports: Record<string, unknown>;
  /** Every workflow the module exports, by workflow name. */
  workflows: Map<string, Workflow>;
}

export async function loadWorkflowModule(file: string): Promise<WorkflowModule> {
  const path = resolve(file);
  if (!(await stat(path).catch(() => undefined))?.isFile())
    throw new AvaError("NOT_FOUND", `workflow module ${file} does not exist`);
  let mod: Record<string, unknown>;
  try {
    mod = await import(pathToFileURL(path).href);
  } catch (cause) {
    throw new AvaError(
      "INVALID_ARGUMENT",
      `workflow module ${file} cannot be imported: ${(cause as Error)?.message ?? String(cause)}`,
      { cause },
    );
  }
  const workflows = new Map<string, Workflow>();
  for (const value of Object.values(mod)) if (isWorkflow(value)) workflows.set(value.name, value);
  return { exports: mod, workflows };
}

/** `MODULE#NAME` -> the workflow; NAME is an export's name or a workflow's name. */
export async function loadWorkflow(spec: string): Promise<Workflow> {
  const hash = spec.lastIndexOf("#");
  if (hash <= 0 || hash === spec.length - 1)
    throw new AvaError("INVALID_ARGUMENT", `name a workflow as MODULE#WORKFLOW, got ${JSON.stringify(spec)}`);
  return findWorkflow(spec.slice(0, hash), spec.slice(hash + 1));
}

export async function findWorkflow(file: string, name: string): Promise<Workflow> {
  const { exports, workflows } = await loadWorkflowModule(file);
  const exported = exports[name];
  if (isWorkflow(exported)) return exported;
  const byName = workflows.get(name);
  if (byName) return byName;
  throw new AvaError(
    "NOT_FOUND",
    `module ${file} exports no workflow ${name} (its workflows: ${[...workflows.keys()].join(", ") || "none"})`,
  );
}
