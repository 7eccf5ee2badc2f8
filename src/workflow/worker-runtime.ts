// Inside a worker: finds the workflow by name among those its entry serves (`serveWorkflows(...)`) and the
// node by slug, reopens the run's storage from its descriptor, runs the node and posts the outcome back.
import { AvaError } from "../errors.js";
import type { Storage, StorageDescriptor } from "../storage/types.js";
import { decodeValue, encodeValue, type ModelLookup } from "./crossing.js";
import { toErrorInfo } from "./errors.js";
import { invokeStep, type NodeEvents, type NodeOutcome, type NodeTask } from "./invoke.js";
import { isWorkflow, type Workflow } from "./workflow.js";
import type { FromWorker, ToWorker } from "./worker-protocol.js";

export interface WorkerHost {
  post(message: FromWorker, transfer: ArrayBuffer[]): void;
  onMessage(listener: (message: ToWorker) => void): void;
  /** Reopens a storage from its descriptor (each platform knows its own kinds). */
  reopen(descriptor: StorageDescriptor): Storage;
}

/** A storage that refuses use: memory storage lives in one JS context and cannot follow a node. */
function unreachable(descriptor: StorageDescriptor): Storage {
  const refuse = (): never => {
    throw new AvaError(
      "UNAVAILABLE",
      `storage ${JSON.stringify(descriptor)} lives in another JS context; use nodeStorage or browserStorage with worker executors`,
    );
  };
  return {
    descriptor,
    get files() {
      return refuse();
    },
    get catalog() {
      return refuse();
    },
  };
}

/** The workflows a worker entry serves, by name; anything else is refused before a worker starts. */
export function workflowsByName(what: string, flows: readonly unknown[]): ReadonlyMap<string, Workflow> {
  if (flows.length === 0)
    throw new AvaError("INVALID_ARGUMENT", `${what}: pass the workflows this worker entry runs`);
  const byName = new Map<string, Workflow>();
  flows.forEach((flow, i) => {
    if (!isWorkflow(flow))
      throw new AvaError(
        "INVALID_ARGUMENT",
        `${what}: argument ${i} is not a workflow (pass the values of ava.workflow(...), not the module)`,
      );
    const other = byName.get(flow.name);
    if (other && other !== flow)
      throw new AvaError("INVALID_ARGUMENT", `${what}: two different workflows are named ${flow.name}`);
    byName.set(flow.name, flow);
  });
  return byName;
}

/** Runs the nodes of the workflows a worker serves, with what the executor sent: a task and a storage descriptor. */
export interface NodeRunner {
  run(
    task: NodeTask,
    storage: StorageDescriptor | undefined,
    signal: AbortSignal,
    events: NodeEvents,
  ): Promise<NodeOutcome>;
  /** The zod models of a served workflow's tables, to decode AppendResults that crossed. */
  models(workflowName: string): ModelLookup;
  /** The storage a descriptor names, opened once per descriptor. */
  storage(descriptor: StorageDescriptor | undefined): Storage | undefined;
}

/** What a worker entry's author does to serve one more workflow (the default: a worker-thread or Web Worker entry). */
const ADD_TO_ENTRY = "add it to serveWorkflows(...) in the entry the executor's worker() starts";

/**
 * Finds workflows by name and nodes by slug, and keeps one storage per descriptor. `toServeMore` ends the
 * error of a job naming a workflow this worker lacks: how this kind of worker is given one more.
 */
export function nodeRunner(
  flows: ReadonlyMap<string, Workflow>,
  reopen: (descriptor: StorageDescriptor) => Storage,
  toServeMore = ADD_TO_ENTRY,
): NodeRunner {
  const storages = new Map<string, Storage>();

  const workflowNamed = (name: string): Workflow => {
    const found = flows.get(name);
    if (!found)
      throw new AvaError(
        "NOT_FOUND",
        `this worker serves no workflow named ${name} (it serves ${[...flows.keys()].join(", ")}); ${toServeMore}`,
      );
    found.assertRunnable();
    return found;
  };

  /** The node by slug; a miss means the page and this worker built the workflow differently. */
  const stepOf = (flow: Workflow, slug: string) => {
    if (!flow.nodes.some((n) => n.slug === slug))
      throw new AvaError(
        "NOT_FOUND",
        `this worker's workflow ${flow.name} has no node ${slug} (its nodes: ${flow.nodes.map((n) => n.slug).join(", ")}); ` +
          `the page and the worker entry must build the same workflow: name steps with ava.step("name", fn)`,
      );
    return flow.node(slug).step;
  };

  const storageFor = (descriptor: StorageDescriptor | undefined): Storage | undefined => {
    if (!descriptor) return undefined;
    const key = JSON.stringify(descriptor);
    let storage = storages.get(key);
    if (!storage) {
      storage = descriptor.kind === "memory" ? unreachable(descriptor) : reopen(descriptor);
      storages.set(key, storage);
    }
    return storage;
  };

  return {
    models: (name) => flows.get(name)?.tableModels ?? (() => undefined),
    storage: storageFor,
    run(task, descriptor, signal, events) {
      const flow = workflowNamed(task.workflowName);
      return invokeStep(
        stepOf(flow, task.slug),
        {
          ...task,
          args: task.args.map((a) => decodeValue(a, flow.tableModels)),
          input: decodeValue(task.input, flow.tableModels),
        },
        { storage: storageFor(descriptor), signal },
        events,
      );
    },
  };
}

export function serveNodes(host: WorkerHost, flows: ReadonlyMap<string, Workflow>): void {
  const runner = nodeRunner(flows, (d) => host.reopen(d));
  const running = new Map<number, AbortController>();

  host.onMessage(async (message) => {
    if (message.type === "cancel") {
      running.get(message.id)?.abort(new AvaError("RUN_CANCELLED", "the run was cancelled"));
      return;
    }
    const { id, task, storage } = message;
    const abort = new AbortController();
    running.set(id, abort);
    try {
      const { value, lineage } = await runner.run(task, storage, abort.signal, {
        log: (line) => host.post({ type: "log", id, line }, []),
      });
      const out = encodeValue(value, { move: true }); // the worker keeps nothing of a node's value
      host.post({ type: "done", id, ok: true, value: out.value, lineage }, out.transfer);
    } catch (err) {
      host.post({ type: "done", id, ok: false, error: toErrorInfo(err) }, []);
    } finally {
      running.delete(id);
    }
  });
}
