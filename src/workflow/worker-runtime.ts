// Inside a worker: imports a workflow module by URL (once), finds the workflow by name among its exports and
// the node by slug, reopens the run's storage from its descriptor, runs the node and posts the outcome back.
import { AvaError } from "../errors.js";
import type { Storage, StorageDescriptor } from "../storage/types.js";
import { decodeValue, encodeValue } from "./crossing.js";
import { toErrorInfo } from "./errors.js";
import { invokeStep } from "./invoke.js";
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

export function serveNodes(host: WorkerHost): void {
  const modules = new Map<string, Promise<Record<string, unknown>>>();
  const storages = new Map<string, Storage>();
  const running = new Map<number, AbortController>();

  const workflowIn = async (url: string, name: string): Promise<Workflow> => {
    let mod = modules.get(url);
    if (!mod) {
      mod = import(/* @vite-ignore */ url) as Promise<Record<string, unknown>>;
      modules.set(url, mod);
    }
    const found = Object.values(await mod).find((v) => isWorkflow(v) && v.name === name);
    if (!found) throw new AvaError("NOT_FOUND", `module ${url} exports no workflow named ${name}`);
    return found as Workflow;
  };

  const storageFor = (descriptor: StorageDescriptor | undefined): Storage | undefined => {
    if (!descriptor) return undefined;
    const key = JSON.stringify(descriptor);
    let storage = storages.get(key);
    if (!storage) {
      storage = descriptor.kind === "memory" ? unreachable(descriptor) : host.reopen(descriptor);
      storages.set(key, storage);
    }
    return storage;
  };

  host.onMessage(async (message) => {
    if (message.type === "cancel") {
      running.get(message.id)?.abort(new AvaError("RUN_CANCELLED", "the run was cancelled"));
      return;
    }
    const { id, module, task, storage } = message;
    const abort = new AbortController();
    running.set(id, abort);
    try {
      const flow = await workflowIn(module, task.workflowName);
      abort.signal.throwIfAborted(); // cancelled while the module was loading
      const value = await invokeStep(
        flow.node(task.slug).step,
        {
          ...task,
          args: task.args.map((a) => decodeValue(a, flow.tableModels)),
          input: decodeValue(task.input, flow.tableModels),
        },
        { storage: storageFor(storage), signal: abort.signal },
      );
      const out = encodeValue(value, { move: true }); // the worker keeps nothing of a node's value
      host.post({ type: "done", id, ok: true, value: out.value }, out.transfer);
    } catch (err) {
      host.post({ type: "done", id, ok: false, error: toErrorInfo(err) }, []);
    } finally {
      running.delete(id);
    }
  });
}
