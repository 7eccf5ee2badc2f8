// Background maintenance (`maintenance: { auto: true }` on a storage or a namespace): maintain() every
// `intervalMs`, by one runner per storage at a time — across tabs and Workers through a Web Lock, across
// processes (where there are no Web Locks) through a lease committed in the catalog. It runs beside the
// app's appends, never holding them up: each step is an optimistic commit, and appends rebase past it.
import { AvaError, isAvaError } from "../errors.js";
import { clockOf, type Storage } from "../storage/types.js";
import { ulid } from "../util/ids.js";
import {
  checkMaintenanceOptions,
  type MaintenanceOptions,
  type MaintenanceResult,
  maintain,
} from "./maintain.js";

export interface AutoMaintenanceOptions extends MaintenanceOptions {
  /** Run maintenance in the background. */
  auto: boolean;
  /** How often (ms) a runner tries. Default 60 000. */
  intervalMs?: number;
}

export interface MaintenanceRunner {
  /** Runs maintenance now (if this runner gets the lock or lease); undefined when another runner holds it. */
  runNow(): Promise<MaintenanceResult | undefined>;
  /** Stops the runner (waiting for a run under way) and gives up its lease. */
  stop(): Promise<void>;
  /** Completed runs of this runner, and the error of the last run that failed (it tries again later). */
  readonly runs: number;
  readonly lastError: unknown;
}

interface WebLocks {
  request(
    name: string,
    options: { ifAvailable: boolean },
    cb: (lock: unknown) => Promise<unknown>,
  ): Promise<unknown>;
}

function webLocks(): WebLocks | undefined {
  const locks = (globalThis as { navigator?: { locks?: WebLocks } }).navigator?.locks;
  return typeof locks?.request === "function" ? locks : undefined;
}

export function checkAutoMaintenance(what: string, options: AutoMaintenanceOptions): void {
  checkMaintenanceOptions(what, options);
  if (typeof options.auto !== "boolean")
    throw new AvaError("INVALID_ARGUMENT", `${what}: maintenance.auto must be true or false`);
  const { intervalMs } = options;
  if (intervalMs !== undefined && !(typeof intervalMs === "number" && intervalMs > 0))
    throw new AvaError(
      "INVALID_ARGUMENT",
      `${what}: maintenance.intervalMs must be > 0, got ${String(intervalMs)}`,
    );
}

export function startMaintenance(
  storage: Storage,
  namespace: string | undefined,
  options: AutoMaintenanceOptions,
): MaintenanceRunner {
  checkAutoMaintenance("maintenance", options);
  const { auto: _, intervalMs = 60_000, ...policy } = options;
  const holder = ulid();
  const lockName = `avalanche-maintenance:${JSON.stringify(storage.descriptor)}:${namespace ?? "*"}`;
  let runs = 0;
  let lastError: unknown;
  let stopped = false;
  let running: Promise<MaintenanceResult | undefined> = Promise.resolve(undefined);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let leased = false;

  /** Across processes: the catalog lease, taken or renewed for three intervals. */
  const takeLease = async (): Promise<boolean> => {
    const now = clockOf(storage);
    try {
      await storage.catalog.commit([
        { op: "maintenanceLease", holder, untilMs: now + 3 * intervalMs, nowMs: now },
      ]);
      leased = true;
      return true;
    } catch (err) {
      if (isAvaError(err, "COMMIT_CONFLICT")) return false; // another runner holds it
      throw err;
    }
  };

  const once = async (): Promise<MaintenanceResult | undefined> => {
    const locks = webLocks();
    let result: MaintenanceResult | undefined;
    try {
      if (locks)
        await locks.request(lockName, { ifAvailable: true }, async (lock) => {
          if (lock) result = await maintain(storage, namespace, policy);
        });
      else if (await takeLease()) result = await maintain(storage, namespace, policy);
      if (result) runs++;
    } catch (err) {
      lastError = err;
      throw err;
    }
    return result;
  };

  const runNow = () => {
    running = running.then(once, once);
    return running;
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      runNow()
        .catch(() => {}) // kept in lastError; the next interval tries again
        .finally(schedule);
    }, intervalMs);
    // A background chore must not keep a Node process alive.
    (timer as { unref?: () => void }).unref?.();
  };
  schedule();

  return {
    runNow,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running.catch(() => {});
      if (leased)
        await storage.catalog
          .commit([{ op: "maintenanceLease", holder, untilMs: 0, nowMs: clockOf(storage) }])
          .catch(() => {});
    },
    get runs() {
      return runs;
    },
    get lastError() {
      return lastError;
    },
  };
}
