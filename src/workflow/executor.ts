// Executors run nodes. The scheduler hands one node at a time to `runNode`, never more at once than
// `concurrency`; the inline executor calls the function in this thread, worker executors in a pool.
import type { Storage } from "../storage/types.js";
import { invokeStep, type NodeTask } from "./invoke.js";
import type { Workflow } from "./workflow.js";

export interface ExecutorRun {
  workflow: Workflow;
  storage: Storage | undefined;
}

export interface Executor {
  /** What runs the nodes ("inline", "web-worker", "worker-thread", …), told to nodes in their RunContext. */
  readonly kind?: string;
  /** How many nodes may run at once. */
  readonly concurrency: number;
  /**
   * Runs one node; rejects with the node's error. `movable[i]`: argument i is used by no one else, so a
   * worker executor may transfer its buffers instead of copying them.
   */
  runNode(
    run: ExecutorRun,
    task: NodeTask,
    signal: AbortSignal,
    movable?: readonly boolean[],
  ): Promise<unknown>;
  /** Releases what the executor holds (worker pools); inline has nothing. */
  close(): Promise<void>;
}

/** Runs nodes in this thread. `concurrency` bounds how many async nodes are in flight at once. */
export function inlineExecutor({ concurrency = 16 }: { concurrency?: number } = {}): Executor {
  return {
    kind: "inline",
    concurrency,
    runNode({ workflow, storage }, task, signal) {
      return invokeStep(workflow.node(task.slug).step, task, { storage, signal });
    },
    async close() {},
  };
}
