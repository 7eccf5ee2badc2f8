// Scheduled workflows: at each tick of a workflow's cron expression one server runs it. Servers sharing a
// storage race to claim the tick in the catalog (`claimTick`, which refuses a tick at or before the newest
// claimed one): the commit that lands runs it, the others see COMMIT_CONFLICT and stand down. Ticks missed
// while no server ran follow the workflow's `catchUp` policy. A claim is made before its run starts, so a
// server killed between the two loses that tick (at most once, never twice).
import { isAvaError } from "../errors.js";
import type { ScheduleState } from "../storage/catalog/state.js";
import type { Storage } from "../storage/types.js";
import { ulid } from "../util/ids.js";
import type { RunHandle } from "../workflow/run-handle.js";
import type { Workflow, WorkflowSchedule } from "../workflow/workflow.js";
import type { Clock } from "./clock.js";

/** "all" runs at most this many missed ticks (the newest). */
const MAX_CATCH_UP = 100;
/** Wakes at least this often on the system clock, in case the machine slept or the clock jumped. */
const MAX_SLEEP_MS = 30_000;

export interface SchedulerOptions {
  storage: Storage;
  workflows: readonly Workflow[];
  clock: Clock;
  /** Who claims ticks (in the catalog, for operators). */
  serverId: string;
  start(workflow: Workflow, options: { runId: string; metadata: Record<string, unknown> }): RunHandle;
  /** Told of a failure to claim or start (not of a lost race). */
  onError(err: unknown): void;
}

export class Scheduler {
  readonly #options: SchedulerOptions;
  readonly #scheduled: { workflow: Workflow; schedule: WorkflowSchedule }[];
  readonly #abort = new AbortController();
  readonly #startedMs: number;
  #loop: Promise<void> | undefined;
  /** The clock time the loop last finished a pass at (then slept). */
  #passedAt = Number.NEGATIVE_INFINITY;
  /** While the loop sleeps: the clock time it wakes at. */
  #sleepingUntil: number | undefined;
  /** Ticks this server claimed and started: "workflow@tickMs" -> run id. */
  readonly claimed = new Map<string, string>();

  constructor(options: SchedulerOptions) {
    this.#options = options;
    this.#scheduled = options.workflows.flatMap((workflow) =>
      workflow.schedule ? [{ workflow, schedule: workflow.schedule }] : [],
    );
    this.#startedMs = options.clock.now();
  }

  get size(): number {
    return this.#scheduled.length;
  }

  start(): void {
    if (this.#scheduled.length > 0) this.#loop ??= this.#run();
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#loop;
  }

  /**
   * Resolves once nothing is due at the clock's current time: a pass ran at it, or the loop sleeps until a
   * later tick (tests move a manual clock, then wait here).
   */
  async settled(): Promise<void> {
    const { clock } = this.#options;
    const target = clock.now();
    const idle = () =>
      this.#passedAt >= target || (this.#sleepingUntil !== undefined && this.#sleepingUntil > clock.now());
    while (this.#loop && !this.#abort.signal.aborted && !idle()) await new Promise((r) => setTimeout(r, 5));
  }

  async #run(): Promise<void> {
    const { clock } = this.#options;
    while (!this.#abort.signal.aborted) {
      const now = clock.now();
      try {
        await this.#pass(now);
      } catch (err) {
        this.#options.onError(err);
      }
      this.#passedAt = now;
      const next = Math.min(
        ...this.#scheduled.map(({ schedule }) => schedule.cron.next(now) ?? Number.POSITIVE_INFINITY),
      );
      // An absolute deadline: a clock moved during the pass wakes the loop at once.
      this.#sleepingUntil = Math.min(next, now + MAX_SLEEP_MS);
      await clock.sleepUntil(this.#sleepingUntil, this.#abort.signal);
      this.#sleepingUntil = undefined;
    }
  }

  /** Claims and starts every due tick of every scheduled workflow. */
  async #pass(now: number): Promise<void> {
    const state = await this.#options.storage.catalog.current();
    for (const { workflow, schedule } of this.#scheduled) {
      const last = state.schedules?.[workflow.name];
      for (const tick of this.#due(schedule, last, now)) {
        if (this.#abort.signal.aborted) return;
        await this.#claimAndStart(workflow, tick);
      }
    }
  }

  /** The ticks to run now, oldest first, by the catch-up policy. */
  #due({ cron, catchUp }: WorkflowSchedule, last: ScheduleState | undefined, now: number): number[] {
    const latest = cron.previous(now);
    if (latest === undefined || (last && latest <= last.tickMs)) return [];
    // Never claimed, or "none": only ticks since this server started (those before were missed, not due).
    if (!last || catchUp === "none") return latest >= this.#startedMs ? [latest] : [];
    if (catchUp === "latest") return [latest];
    const ticks: number[] = [];
    let t: number | undefined = latest;
    while (t !== undefined && t > last.tickMs && ticks.length < MAX_CATCH_UP) {
      ticks.push(t);
      t = cron.previous(t - 1);
    }
    return ticks.reverse();
  }

  async #claimAndStart(workflow: Workflow, tickMs: number): Promise<void> {
    const { storage, clock, serverId } = this.#options;
    const runId = ulid();
    try {
      await storage.catalog.commit([
        {
          op: "claimTick",
          workflow: workflow.name,
          tickMs,
          runId,
          claimedBy: serverId,
          timestampMs: clock.now(),
        },
      ]);
    } catch (err) {
      if (isAvaError(err, "COMMIT_CONFLICT")) return; // another server (or an earlier pass) has it
      throw err;
    }
    this.claimed.set(`${workflow.name}@${tickMs}`, runId);
    try {
      this.#options.start(workflow, {
        runId,
        metadata: { trigger: "schedule", scheduledTick: new Date(tickMs).toISOString() },
      });
    } catch (err) {
      this.#options.onError(err);
    }
  }
}
