// A Catalog over an append-only log of commits (Delta-style): entry N holds the ops of version N and is
// created only if no entry N exists, which is the one atomic step of a commit. A writer that loses the race
// catches up, re-applies its ops to the new state (appends rebase; explicit expectations may now conflict)
// and tries N+1. Checkpoints of the whole state every `checkpointEvery` versions keep opening fast.
import { AvaError, isAvaError } from "../../errors.js";
import type { Catalog } from "../types.js";
import {
  applyOps,
  type CatalogOp,
  type CatalogState,
  type CommitResult,
  deserializeState,
  EMPTY_STATE,
  serializeState,
} from "./state.js";

/** Where a LogCatalog keeps its entries: files, an IndexedDB store, an array. */
export interface CatalogLog {
  /** Entries `version`, `version + 1`, … up to the newest, in order (empty when `version` does not exist yet). */
  readFrom(version: number): Promise<string[]>;
  /** Makes an entry durable without publishing it (it is not part of the log yet). */
  stage(entry: string): Promise<StagedEntry>;
  latestCheckpoint(): Promise<{ version: number; state: Uint8Array } | undefined>;
  writeCheckpoint(version: number, state: Uint8Array): Promise<void>;
  vacuum(olderThanMs: number): Promise<string[]>;
  /**
   * Calls `onChange` when another instance — another tab, Worker or process — may have published an entry
   * (a hint: the catalog then reads the log to see); stops when the returned function is called. Absent:
   * only this instance's own commits are noticed.
   */
  watch?(onChange: () => void): () => void;
}

/** An entry written but not yet in the log; publishing it under a version is the atomic commit step. */
export interface StagedEntry {
  /** Publishes the entry as `version` atomically; false when that version exists already. */
  publish(version: number): Promise<boolean>;
  /** Drops a staged entry that will not be published (or the leftover of one that was). */
  discard(): Promise<void>;
}

export interface CommitOptions {
  /**
   * The commit is published only after this resolves (the data files it references are written), and
   * fails if it rejects. The catalog stages its entry meanwhile, so the two writes overlap.
   */
  dependsOn?: Promise<unknown>;
}

interface LogEntry {
  ops: CatalogOp[];
}

export interface LogCatalogOptions {
  checkpointEvery?: number;
  /** How long a commit keeps rebasing under contention before it gives up with COMMIT_CONFLICT. */
  retryForMs?: number;
}

export class LogCatalog implements Catalog {
  #state: CatalogState | undefined;
  #loading: Promise<CatalogState> | undefined;
  readonly #log: CatalogLog;
  readonly #checkpointEvery: number;
  readonly #retryForMs: number;
  readonly #listeners = new Set<(state: CatalogState) => void>();
  #unwatch: (() => void) | undefined;

  constructor(log: CatalogLog, { checkpointEvery = 100, retryForMs = 30_000 }: LogCatalogOptions = {}) {
    this.#log = log;
    this.#checkpointEvery = checkpointEvery;
    this.#retryForMs = retryForMs;
  }

  async current(): Promise<CatalogState> {
    // Concurrent callers in this context share one catch-up.
    this.#loading ??= this.#catchUp().finally(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }

  peek(): CatalogState | undefined {
    return this.#state;
  }

  async #catchUp(): Promise<CatalogState> {
    let state = this.#state;
    if (!state) {
      const checkpoint = await this.#log.latestCheckpoint();
      state = checkpoint
        ? deserializeState(checkpoint.state, (what, cause) =>
            this.#corrupt(`checkpoint ${checkpoint.version}: ${what}`, cause),
          )
        : EMPTY_STATE;
    }
    const from = state.version + 1;
    const texts = await this.#log.readFrom(from);
    texts.forEach((text, i) => {
      const entry = this.#parse(from + i, () => JSON.parse(text) as LogEntry);
      state = applyOps(state!, entry.ops).state;
    });
    // A commit of this instance may have moved the held state past what this catch-up read.
    if (!this.#state || state.version > this.#state.version) this.#advance(state);
    return this.#state!;
  }

  /** Holds a newer state and tells the subscribers. */
  #advance(state: CatalogState): void {
    const before = this.#state?.version;
    this.#state = state;
    if (state.version === before) return;
    for (const listener of [...this.#listeners]) {
      try {
        listener(state);
      } catch (err) {
        // One failing subscriber must not stop the others, nor the commit that made the change.
        console.error("avalanche-web: a catalog subscriber threw", err);
      }
    }
  }

  subscribe(listener: (state: CatalogState) => void): () => void {
    if (typeof listener !== "function")
      throw new AvaError("INVALID_ARGUMENT", "subscribe() needs a listener function");
    this.#listeners.add(listener);
    // Watching starts with the first subscriber and stops with the last: an unwatched catalog costs nothing.
    this.#unwatch ??= this.#log.watch?.(() => void this.current().catch(() => {}));
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) {
        this.#unwatch?.();
        this.#unwatch = undefined;
      }
    };
  }

  #parse<T>(version: number, parse: () => T): T {
    try {
      return parse();
    } catch (cause) {
      throw this.#corrupt(`catalog entry ${version}`, cause);
    }
  }

  #corrupt(what: string, cause: unknown): AvaError {
    return new AvaError("CATALOG_CORRUPT", `${what} cannot be read: ${String(cause)}`, { cause });
  }

  async commit(ops: readonly CatalogOp[], { dependsOn }: CommitOptions = {}): Promise<CommitResult> {
    const deadline = Date.now() + this.#retryForMs;
    // Judge the ops before writing anything, so that a refused commit stages nothing. The first judgement
    // uses the state this instance holds (saving a read of the log per commit); if that state was stale,
    // the exclusive publish fails and the loop below catches up. Only a refusal on the latest state is final.
    let base = this.#state ?? (await this.current());
    let applied: ReturnType<typeof applyOps>;
    try {
      applied = applyOps(base, ops);
    } catch {
      base = await this.current();
      applied = applyOps(base, ops); // COMMIT_CONFLICT / NOT_FOUND / SCHEMA_MISMATCH
    }
    const staging = this.#log.stage(JSON.stringify({ ops: [...ops] } satisfies LogEntry));
    let staged: StagedEntry | undefined;
    try {
      [staged] = await Promise.all([staging, dependsOn]);
      for (let attempt = 0; ; attempt++) {
        if (await staged.publish(applied.state.version)) {
          if (this.#state === base) this.#advance(applied.state);
          // Another catch-up moved the held state meanwhile: subscribers learn of this commit from a new one.
          else if (this.#listeners.size > 0) void this.current().catch(() => {});
          if (applied.state.version % this.#checkpointEvery === 0) await this.#checkpoint(applied.state);
          return { version: applied.state.version, snapshots: applied.snapshots };
        }
        if (Date.now() > deadline) {
          throw new AvaError(
            "COMMIT_CONFLICT",
            `gave up committing after ${attempt + 1} attempts: the catalog is contended`,
          );
        }
        // Lost the race for this version: back off a little (jittered, growing), catch up and rebase.
        await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 ** attempt)));
        base = await this.current();
        applied = applyOps(base, ops);
      }
    } finally {
      // After a publish the staged file is only a leftover; after a failure it was never part of the log.
      staged ??= await staging.catch(() => undefined);
      await staged?.discard();
    }
  }

  async #checkpoint(state: CatalogState): Promise<void> {
    try {
      await this.#log.writeCheckpoint(state.version, serializeState(state));
    } catch (err) {
      // A checkpoint only speeds up opening; the log stays the truth, so a failed one is not the commit's failure.
      if (!isAvaError(err)) throw err;
    }
  }

  vacuum(olderThanMs: number): Promise<string[]> {
    return this.#log.vacuum(olderThanMs);
  }
}
