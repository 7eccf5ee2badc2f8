// The runs a catalog has recorded, by run id. Like a table's history, a checkpoint's runs are parsed only
// when something asks for them; runs recorded since are kept beside them.
import type { RunRecord } from "./model.js";

export class RunLog {
  #load: (() => Record<string, RunRecord>) | undefined;
  #runs: Map<string, RunRecord> | undefined;
  #since: Map<string, RunRecord>;

  private constructor(load: (() => Record<string, RunRecord>) | undefined, since: Map<string, RunRecord>) {
    this.#load = load;
    this.#since = since;
  }

  static empty(): RunLog {
    return new RunLog(() => ({}), new Map());
  }

  /** Runs that `load` parses on first use (called at most once). */
  static lazy(load: () => Record<string, RunRecord>): RunLog {
    let loaded: Record<string, RunRecord> | undefined;
    return new RunLog(() => {
      loaded ??= load();
      return loaded;
    }, new Map());
  }

  #all(): Map<string, RunRecord> {
    if (!this.#runs) {
      this.#runs = new Map(Object.entries(this.#load!()));
      for (const [id, run] of this.#since) this.#runs.set(id, run);
    }
    return this.#runs;
  }

  get(runId: string): RunRecord | undefined {
    return this.#since.get(runId) ?? this.#all().get(runId);
  }

  has(runId: string): boolean {
    return this.get(runId) !== undefined;
  }

  /** Every run, in the order they were first recorded. */
  list(): RunRecord[] {
    return [...this.#all().values()];
  }

  /** A new log with `run` recorded (replacing an earlier record of the same run). */
  with(run: RunRecord): RunLog {
    const since = new Map(this.#since).set(run.runId, run);
    return new RunLog(this.#load, since);
  }

  toJSON(): Record<string, RunRecord> {
    return Object.fromEntries(this.#all());
  }
}
