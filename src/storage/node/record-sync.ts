// How a commit waits for an fdatasync (its catalog record's, its small data file's): on the calling thread
// while the disk answers fast, on the thread pool otherwise.
//
// On the thread pool, the main thread sleeps in the event loop, a pool thread is woken to call fdatasync,
// and it wakes the main thread again once the disk has answered: two cross-thread wake-ups per commit. On a
// virtual machine like this project's, waking an idle vCPU costs about as much as a fast disk's flush: a
// bare loop of a 5 KB write + fdatasync took 0.54–0.58 ms each through the pool and 0.35 ms on the calling
// thread, and one sequential appender (bench/commit-profile.ts, fsync on, 3 interleaved pairs) made
// 842–892 commits/s through the pool against 1,049–1,118 here.
//
// The calling thread's fdatasync holds the event loop for as long as the disk takes, so it is used only
// while the recent ones took under SYNC_BUDGET_MS on average: past that (a spinning or network disk, or a
// burst of other writes) the wake-ups cost a small share of the wait, and the event loop matters more.
import { fdatasyncSync } from "node:fs";
import { setImmediate as afterPoll } from "node:timers/promises";
import { fdatasyncAsync } from "./fd-async.js";

/** The recent fdatasyncs' average (ms) above which they go to the thread pool. */
export const SYNC_BUDGET_MS = 1;
/** Weight of the newest fdatasync in the average: a single slow one moves it, a few fast ones bring it back. */
const WEIGHT = 0.2;

export interface RecordSyncCalls {
  /** fdatasync on the calling thread. */
  here(fd: number): void;
  /** fdatasync on the thread pool. */
  pooled(fd: number): Promise<void>;
}

const fsCalls: RecordSyncCalls = { here: fdatasyncSync, pooled: fdatasyncAsync };

export class RecordSync {
  /** Moving average of the fdatasyncs' durations (ms), by either way: what the disk takes now. */
  #averageMs = 0;

  constructor(private readonly calls: RecordSyncCalls = fsCalls) {}

  /** Whether the next fdatasync runs on the calling thread. */
  get onCallingThread(): boolean {
    return this.#averageMs <= SYNC_BUDGET_MS;
  }

  /**
   * `fd`'s data durable. Either way it then yields to the event loop once, past its poll phase: a loop of
   * commits must not starve every other I/O callback.
   */
  async sync(fd: number): Promise<void> {
    const start = performance.now();
    if (this.onCallingThread) {
      try {
        this.calls.here(fd);
      } finally {
        this.#note(performance.now() - start);
      }
      await afterPoll();
    } else {
      try {
        await this.calls.pooled(fd);
      } finally {
        // Includes the wake-ups (~0.2 ms): an upper bound, which lets the average come back under the budget
        // once the disk is fast again.
        this.#note(performance.now() - start);
      }
    }
  }

  #note(ms: number): void {
    this.#averageMs += (ms - this.#averageMs) * WEIGHT;
  }
}
