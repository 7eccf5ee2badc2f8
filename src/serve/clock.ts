// Time for the scheduler, behind an interface so that tests move it by hand: the system clock, and a manual
// clock whose sleepers wake when it is advanced past their deadline.

export interface Clock {
  now(): number;
  /** Resolves once the clock reads `ms` or later (at once when it already does, or `signal` aborts). */
  sleepUntil(ms: number, signal: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleepUntil: (ms, signal) =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const timer = setTimeout(done, Math.max(0, ms - Date.now()));
      function done() {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      }
      signal.addEventListener("abort", done, { once: true });
    }),
};

/** A clock that moves only when told to (tests); several servers may share one. */
export class ManualClock implements Clock {
  #now: number;
  readonly #sleepers = new Set<{ until: number; wake: () => void }>();

  constructor(startMs: number) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  sleepUntil(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted || ms <= this.#now) return resolve();
      const sleeper = {
        until: ms,
        wake: () => {
          this.#sleepers.delete(sleeper);
          signal.removeEventListener("abort", sleeper.wake);
          resolve();
        },
      };
      this.#sleepers.add(sleeper);
      signal.addEventListener("abort", sleeper.wake, { once: true });
    });
  }

  /** Moves the time to `ms` and wakes whoever sleeps until then. */
  set(ms: number): void {
    this.#now = Math.max(this.#now, ms);
    for (const s of [...this.#sleepers]) if (s.until <= this.#now) s.wake();
  }

  advance(ms: number): void {
    this.set(this.#now + ms);
  }
}
