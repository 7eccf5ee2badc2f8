// A Catalog over an append-only log of commits (Delta-style): entry N holds the ops of version N and is
// created only if no entry N exists, which is the one atomic step of a commit. A writer that loses the race
// catches up, re-applies its ops to the new state (appends rebase; explicit expectations may now conflict)
// and tries N+1. Checkpoints of the whole state keep opening fast: one is written when the entries since the
// last one add up to a share of its size (so their total bytes grow linearly with history, not
// quadratically), and older ones are thinned out as newer ones arrive (see checkpoint-retention.ts).
import { AvaError, isAvaError } from "../../errors.js";
import type { Catalog, CleanupOptions } from "../types.js";
import { applyOps, type CatalogOp, type CatalogState, type CommitResult, EMPTY_STATE } from "./state.js";
import {
  CHECKPOINT_HEAD_BYTES,
  checkpointWrittenMs,
  deserializeState,
  serializeState,
} from "./checkpoint.js";
import { checkpointsToPrune } from "./checkpoint-retention.js";
import { checked, logEntry } from "./validate.js";

/** The error for a log with a hole: entries were lost, so no state built from it can be trusted. */
export function logGap(missing: number, later: number | string): AvaError {
  return new AvaError(
    "CATALOG_CORRUPT",
    `catalog entry ${missing} is missing but entry ${later} exists: the log has a gap (committed history was lost); restore the missing entry`,
  );
}

/** Where a LogCatalog keeps its entries: files, an IndexedDB store, an array. */
export interface CatalogLog {
  /**
   * Entries `version`, `version + 1`, … up to the newest, in order (empty when `version` does not exist yet).
   * Throws CATALOG_CORRUPT (see `logGap`) when an entry is missing but a later one exists. With `held`,
   * a log that reads entry by entry may stop before the first version `held` says the reader already
   * holds: a catch-up racing this process's own appender would otherwise chase it, reading back and
   * replaying every entry the appender publishes meanwhile.
   */
  readFrom(version: number, held?: (version: number) => boolean): Promise<string[]>;
  /** How an entry is named in errors: its file, say. */
  entryName?(version: number): string;
  /**
   * Makes an entry durable without publishing it (it is not part of the log yet). `version` is the one it
   * will most likely be published as (a log may write it into the entry's record; publishing it as
   * another then writes it again).
   */
  stage(entry: string, version?: number): Promise<StagedEntry>;
  latestCheckpoint(): Promise<{ version: number; state: Uint8Array } | undefined>;
  writeCheckpoint(version: number, state: Uint8Array): Promise<void>;
  vacuum(olderThanMs: number): Promise<string[]>;
  /**
   * Calls `onChange` when another instance — another tab, Worker or process — may have published an entry
   * (a hint: the catalog then reads the log to see); stops when the returned function is called. Absent:
   * only this instance's own commits are noticed.
   */
  watch?(onChange: () => void): () => void;
  /**
   * Removes the entries before `version` and the checkpoints before it (catalog cleanup: a checkpoint at
   * `version` covers them). Returns what was removed. Absent: the log keeps everything.
   */
  removeBefore?(version: number): Promise<string[]>;
  /** Every checkpoint's version and its first `bytes` bytes (for cleanup, which reads their time). */
  checkpointHeads?(bytes: number): Promise<{ version: number; head: Uint8Array }[]>;
  /**
   * Removes these checkpoints (and no log entry: readers catch up from the entries, and open from the
   * newest checkpoint, which is never among them). Absent: checkpoints stay until cleanup.
   */
  removeCheckpoints?(versions: readonly number[]): Promise<void>;
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

/** Cleanup checkpoints a log that has this many entries after its newest checkpoint. */
const CLEANUP_EVERY = 100;

interface LogEntry {
  ops: CatalogOp[];
}

interface WaitingCommit {
  ops: readonly CatalogOp[];
  resolve(result: CommitResult): void;
  reject(err: unknown): void;
}

/** The members of a group that apply in turn (each with its snapshots), those refused, and the state after. */
function judgeGroup(base: CatalogState, members: readonly WaitingCommit[]) {
  const accepted: { member: WaitingCommit; snapshots: CommitResult["snapshots"] }[] = [];
  const refused: { member: WaitingCommit; err: unknown }[] = [];
  let state = base;
  for (const member of members) {
    try {
      const applied = applyOps(state, member.ops);
      state = applied.state;
      accepted.push({ member, snapshots: applied.snapshots });
    } catch (err) {
      refused.push({ member, err });
    }
  }
  return { accepted, refused, state };
}

export interface LogCatalogOptions {
  /** The fewest versions between two checkpoints (default 100). */
  checkpointEvery?: number;
  /**
   * Past `checkpointEvery`, a checkpoint is written once the entries since the last one reach this share
   * of its size (default 0.5): few checkpoints while history is large, a replay at open of at most that
   * share of the state.
   */
  checkpointGrowth?: number;
  /** The clock checkpoints are stamped with (cleanup's grace period is measured on it). Default Date.now. */
  now?: () => number;
  /** How long a commit keeps rebasing under contention before it gives up with COMMIT_CONFLICT. */
  retryForMs?: number;
  /**
   * A commit that makes a checkpoint due returns once its entry is published; the checkpoint is written
   * after (one at a time). A checkpoint only speeds up opening — the log is the truth and a reader finds
   * the newest whole one — so nothing waits for it but the commit that would otherwise carry its write
   * (in IndexedDB ~50 ms for a 0.5 MB state, one commit in a hundred; in Node its write, fsync and the
   * pruning of older ones). Default false: written before the commit returns.
   */
  checkpointInBackground?: boolean;
}

export class LogCatalog implements Catalog {
  #state: CatalogState | undefined;
  #loading: Promise<CatalogState> | undefined;
  readonly #log: CatalogLog;
  readonly #checkpointEvery: number;
  readonly #checkpointGrowth: number;
  /** What this instance knows of the newest checkpoint, and the entry bytes it has seen after it. */
  #sinceCheckpoint = { version: 0, bytes: 0, entryBytes: 0 };
  readonly #retryForMs: number;
  readonly #now: () => number;
  readonly #checkpointInBackground: boolean;
  /** The checkpoint being written in the background, if any. */
  #checkpointing: Promise<void> | undefined;
  /**
   * The earliest time a cleanup with this grace period can remove anything more, as the last one found:
   * until then a cleanup that writes no checkpoint (the background flush's, after every flush) returns at
   * once instead of listing the checkpoints (in IndexedDB a transaction reading every checkpoint's key,
   * in Node a file opened per checkpoint) and removing again up to the checkpoint it removed up to before.
   */
  #cleanupDue: { graceMs: number; atMs: number } | undefined;
  readonly #listeners = new Set<(state: CatalogState) => void>();
  #unwatch: (() => void) | undefined;
  /** A commit (or group) of this instance is being written; commits arriving meanwhile wait in #waiting. */
  #busy = false;
  #waiting: WaitingCommit[] = [];

  constructor(
    log: CatalogLog,
    {
      checkpointEvery = 100,
      checkpointGrowth = 0.5,
      retryForMs = 30_000,
      now = Date.now,
      checkpointInBackground = false,
    }: LogCatalogOptions = {},
  ) {
    this.#log = log;
    this.#checkpointInBackground = checkpointInBackground;
    this.#now = now;
    this.#checkpointEvery = checkpointEvery;
    this.#checkpointGrowth = checkpointGrowth;
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
    if (!state) state = await this.#open();
    else state = await this.#readOn(state);
    // A commit of this instance may have moved the held state past what this catch-up read.
    if (!this.#state || state.version > this.#state.version) this.#advance(state);
    return this.#state!;
  }

  /**
   * The entries after `state`. Cleanup may have removed them (this instance fell more than the grace
   * period behind): then a checkpoint newer than `state` exists, and the state is read from it.
   */
  async #readOn(state: CatalogState): Promise<CatalogState> {
    try {
      // Entries this instance committed since `state` are in the state it holds: #catchUp returns that one.
      const held = (v: number) => v <= (this.#state?.version ?? 0);
      return this.#replay(state, await this.#log.readFrom(state.version + 1, held), state.version + 1);
    } catch (err) {
      if (!isAvaError(err, "CATALOG_CORRUPT") || !this.#log.removeBefore) throw err;
      const checkpoint = await this.#log.latestCheckpoint();
      if (!checkpoint || checkpoint.version <= state.version) throw err;
      return this.#open();
    }
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

  /**
   * A catch-up that starts after this call: one already under way may have listed the log before the
   * change that called for this one, and joining it would miss that change until the next signal.
   */
  #caughtUpAfterNow(): void {
    const next = () => void this.current().catch(() => {});
    if (this.#loading) void this.#loading.then(next, next);
    else next();
  }

  subscribe(listener: (state: CatalogState) => void): () => void {
    if (typeof listener !== "function")
      throw new AvaError("INVALID_ARGUMENT", "subscribe() needs a listener function");
    this.#listeners.add(listener);
    // Watching starts with the first subscriber and stops with the last: an unwatched catalog costs nothing.
    this.#unwatch ??= this.#log.watch?.(() => this.#caughtUpAfterNow());
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) {
        this.#unwatch?.();
        this.#unwatch = undefined;
      }
    };
  }

  /**
   * The state from the newest checkpoint and the entries after it. The checkpoint's own entry must still be
   * in the log (a log deleted beside a checkpoint is not a table as of that checkpoint); a damaged
   * checkpoint is set aside for a replay of the whole log, which must then reach at least its version.
   */
  async #open(): Promise<CatalogState> {
    const checkpoint = await this.#log.latestCheckpoint();
    if (!checkpoint) {
      this.#sinceCheckpoint = { version: 0, bytes: 0, entryBytes: 0 };
      return this.#replay(EMPTY_STATE, await this.#log.readFrom(1), 1);
    }
    const name = `checkpoint ${checkpoint.version}`;
    let fromCheckpoint: CatalogState | undefined;
    let damage: AvaError | undefined;
    try {
      fromCheckpoint = deserializeState(checkpoint.state, (what, cause) =>
        this.#corrupt(`${name}: ${what}`, cause),
      );
    } catch (err) {
      if (!isAvaError(err, "CATALOG_CORRUPT")) throw err;
      damage = err;
    }
    if (fromCheckpoint && fromCheckpoint.version !== checkpoint.version)
      damage = this.#corrupt(name, `it holds version ${fromCheckpoint.version}`);
    if (fromCheckpoint && !damage) {
      const texts = await this.#log.readFrom(checkpoint.version);
      if (texts.length === 0) {
        throw new AvaError(
          "CATALOG_CORRUPT",
          `${name} exists but catalog entry ${checkpoint.version} (${this.#entryName(checkpoint.version)}) does not: the log was lost`,
        );
      }
      this.#sinceCheckpoint = { version: checkpoint.version, bytes: checkpoint.state.length, entryBytes: 0 };
      return this.#replay(fromCheckpoint, texts.slice(1), checkpoint.version + 1);
    }
    this.#sinceCheckpoint = { version: 0, bytes: 0, entryBytes: 0 }; // the damaged one is to be replaced
    const beyond = (why: string, cause?: unknown) =>
      new AvaError("CATALOG_CORRUPT", `${damage!.message}; the log cannot replace it: ${why}`, { cause });
    let replayed: CatalogState;
    try {
      replayed = this.#replay(EMPTY_STATE, await this.#log.readFrom(1), 1);
    } catch (err) {
      throw isAvaError(err, "CATALOG_CORRUPT") ? beyond(err.message, err) : err;
    }
    if (replayed.version < checkpoint.version) throw beyond(`it holds ${replayed.version} entries`);
    return replayed;
  }

  #replay(state: CatalogState, texts: readonly string[], from: number): CatalogState {
    texts.forEach((text, i) => {
      this.#sinceCheckpoint.entryBytes += text.length;
      // An entry was judged when it was committed: one that does not apply on replay is damaged.
      state = this.#parse(from + i, () => {
        const entry = checked<LogEntry>(JSON.parse(text), logEntry, "entry");
        return applyOps(state, entry.ops).state;
      });
    });
    return state;
  }

  #entryName(version: number): string {
    return this.#log.entryName?.(version) ?? `entry ${version}`;
  }

  #parse<T>(version: number, parse: () => T): T {
    try {
      return parse();
    } catch (cause) {
      throw this.#corrupt(`catalog entry ${version} (${this.#entryName(version)})`, cause);
    }
  }

  #corrupt(what: string, cause: unknown): AvaError {
    return new AvaError("CATALOG_CORRUPT", `${what} cannot be read: ${String(cause)}`, { cause });
  }

  /**
   * Group commit: while one commit of this instance is being written (its entry staged and synced), the
   * commits that arrive wait and are then written together, as one log entry with one sync — each still
   * its own snapshots, judged on its own (see #commitGroup). A lone commit is written at once, its entry
   * staged while its data files are written, so a sequential writer waits for nothing.
   */
  async commit(ops: readonly CatalogOp[], { dependsOn }: CommitOptions = {}): Promise<CommitResult> {
    if (!this.#busy) return this.#commitAlone(ops, dependsOn);
    // A commit joins the next group once its data files are written: a slow write holds up no other.
    await dependsOn;
    if (!this.#busy) return this.#commitAlone(ops, undefined);
    return new Promise((resolve, reject) => this.#waiting.push({ ops, resolve, reject }));
  }

  async #commitAlone(
    ops: readonly CatalogOp[],
    dependsOn: Promise<unknown> | undefined,
  ): Promise<CommitResult> {
    this.#busy = true;
    try {
      return await this.#commitOne(ops, dependsOn);
    } finally {
      this.#nextGroup();
    }
  }

  /** Writes the commits that waited (if any) as the next group; otherwise this instance is idle again. */
  #nextGroup(): void {
    const group = this.#waiting.splice(0);
    if (group.length === 0) {
      this.#busy = false;
      return;
    }
    const written =
      group.length === 1
        ? this.#commitOne(group[0]!.ops, undefined).then(group[0]!.resolve, group[0]!.reject)
        : this.#commitGroup(group);
    void written.finally(() => this.#nextGroup());
  }

  /**
   * Several commits as one entry. Each is judged on the state after those before it, so one that is
   * refused (a conflict, a schema mismatch, a re-sent idempotency key) fails alone and the rest go on;
   * replaying the entry applies the same ops in the same order, so it yields the same state. A lost race
   * for the version rebases the group like a single commit.
   */
  async #commitGroup(group: readonly WaitingCommit[]): Promise<void> {
    const deadline = Date.now() + this.#retryForMs;
    let members = group;
    let staged: StagedEntry | undefined;
    // Refused members learn of it once the group is published: a re-sent idempotency key must find the
    // snapshot of the member that carried it first.
    const refused: { member: WaitingCommit; err: unknown }[] = [];
    try {
      for (let attempt = 0; ; attempt++) {
        let base = attempt === 0 ? (this.#state ?? (await this.current())) : await this.current();
        let judged = judgeGroup(base, members);
        if (judged.refused.length > 0 && attempt === 0) {
          // Judged on a state that may be stale: only a refusal on the latest state is final.
          base = await this.current();
          judged = judgeGroup(base, members);
        }
        refused.push(...judged.refused);
        members = judged.accepted.map((a) => a.member);
        if (members.length === 0) return;
        const state = { ...judged.state, version: base.version + 1 };
        const text = JSON.stringify({ ops: members.flatMap((m) => m.ops) } satisfies LogEntry);
        void staged?.discard().catch(() => {});
        staged = await this.#log.stage(text, state.version);
        if (await staged.publish(state.version)) {
          await this.#published(base, state, text);
          for (const { member, snapshots } of judged.accepted)
            member.resolve({ version: state.version, snapshots });
          return;
        }
        await this.#backOff(attempt, deadline);
      }
    } catch (err) {
      for (const m of members) m.reject(err);
    } finally {
      for (const { member, err } of refused) member.reject(err);
      void staged?.discard().catch(() => {});
    }
  }

  async #commitOne(
    ops: readonly CatalogOp[],
    dependsOn: Promise<unknown> | undefined,
  ): Promise<CommitResult> {
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
    const text = JSON.stringify({ ops: [...ops] } satisfies LogEntry);
    const staging = this.#log.stage(text, applied.state.version);
    let staged: StagedEntry | undefined;
    try {
      [staged] = await Promise.all([staging, dependsOn]);
      for (let attempt = 0; ; attempt++) {
        if (await staged.publish(applied.state.version)) {
          await this.#published(base, applied.state, text);
          return { version: applied.state.version, snapshots: applied.snapshots };
        }
        // Lost the race for this version: back off, catch up and rebase.
        await this.#backOff(attempt, deadline);
        base = await this.current();
        applied = applyOps(base, ops);
      }
    } finally {
      // After a publish the staged file is only a leftover; after a failure it was never part of the log.
      // Either way nothing waits for its removal (vacuum removes what a crash leaves behind).
      staged ??= await staging.catch(() => undefined);
      void staged?.discard().catch(() => {});
    }
  }

  /**
   * What follows a won publish of `state` (made on `base`): the held state advances — or, if another
   * catch-up moved it meanwhile, subscribers learn of this commit from a new one — the entry's bytes
   * count towards the next checkpoint, and the checkpoint is written when due.
   */
  async #published(base: CatalogState, state: CatalogState, text: string): Promise<void> {
    if (this.#state === base) this.#advance(state);
    else if (this.#listeners.size > 0) void this.current().catch(() => {});
    this.#sinceCheckpoint.entryBytes += text.length;
    if (!this.#checkpointDue(state.version)) return;
    if (!this.#checkpointInBackground) return this.#checkpoint(state);
    if (this.#checkpointing) return; // the next commit checkpoints once this one is written
    this.#checkpointing = this.#checkpoint(state)
      .catch(() => {}) // only opening is slower without it; the next due commit writes another
      .finally(() => {
        this.#checkpointing = undefined;
      });
  }

  /** After a lost race for a version: COMMIT_CONFLICT past `deadline`, else a short wait (jittered, growing). */
  async #backOff(attempt: number, deadline: number): Promise<void> {
    if (Date.now() > deadline)
      throw new AvaError(
        "COMMIT_CONFLICT",
        `gave up committing after ${attempt + 1} attempts: the catalog is contended`,
      );
    await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 ** attempt)));
  }

  /**
   * Whether a commit at `version` writes a checkpoint. A state read from a checkpoint of S bytes is
   * replayed from at most `checkpointGrowth` × S bytes of entries; a fixed cadence instead would write the
   * whole (growing) state every so many commits, quadratic bytes in all.
   */
  #checkpointDue(version: number): boolean {
    const since = this.#sinceCheckpoint;
    if (version - since.version < this.#checkpointEvery) return false;
    return since.entryBytes >= this.#checkpointGrowth * since.bytes;
  }

  async #checkpoint(state: CatalogState): Promise<void> {
    try {
      const bytes = serializeState(state, this.#now());
      await this.#log.writeCheckpoint(state.version, bytes);
      if (state.version >= this.#sinceCheckpoint.version)
        this.#sinceCheckpoint = { version: state.version, bytes: bytes.length, entryBytes: 0 };
      await this.#pruneCheckpoints();
    } catch (err) {
      // A checkpoint only speeds up opening; the log stays the truth, so a failed one is not the commit's failure.
      if (!isAvaError(err)) throw err;
    }
  }

  /** Thins out older checkpoints, keeping those cleanup's grace period may still need. */
  async #pruneCheckpoints(): Promise<void> {
    if (!this.#log.removeCheckpoints || !this.#log.checkpointHeads) return;
    const heads = await this.#log.checkpointHeads(CHECKPOINT_HEAD_BYTES);
    const prune = checkpointsToPrune(
      heads.map(({ version, head }) => ({ version, writtenMs: checkpointWrittenMs(head) })),
      this.#now(),
    );
    if (prune.length > 0) await this.#log.removeCheckpoints(prune);
  }

  vacuum(olderThanMs: number): Promise<string[]> {
    return this.#log.vacuum(olderThanMs);
  }

  /**
   * Catalog cleanup: the log entries and checkpoints before the newest checkpoint that is `graceMs` old
   * (readers that opened an older state have had that long to catch up) are removed. When many entries
   * followed the newest checkpoint, a new one is written now, to clean up to on a later call — unless
   * `checkpoint` is false (a caller that cleans up often, as the background flush does, would otherwise
   * write the whole state every few commits; the checkpoints commits write come often enough).
   */
  async cleanup(graceMs: number, { checkpoint = true }: CleanupOptions = {}): Promise<string[]> {
    if (!this.#log.removeBefore) return [];
    const listedAt = this.#now();
    const due = this.#cleanupDue;
    if (!checkpoint && due?.graceMs === graceMs && listedAt < due.atMs) return [];
    const state = await this.current();
    const heads = this.#log.checkpointHeads
      ? await this.#log.checkpointHeads(CHECKPOINT_HEAD_BYTES)
      : await this.#log.latestCheckpoint().then((c) => (c ? [{ version: c.version, head: c.state }] : []));
    const cutoff = this.#now() - graceMs;
    let upTo: number | undefined;
    let newest = 0;
    const written = heads.map(({ version, head }) => ({ version, ms: checkpointWrittenMs(head) }));
    for (const { version, ms } of written) {
      newest = Math.max(newest, version);
      if (ms !== undefined && ms <= cutoff && (upTo === undefined || version > upTo)) upTo = version;
    }
    const removed = upTo === undefined ? [] : await this.#log.removeBefore(upTo);
    // Only a checkpoint after `upTo` can let a later cleanup remove more: one listed now is due once it is
    // graceMs old, one written after this listing (by any context) later still. (One whose write was under
    // way as the list was taken is cleaned up to that much later: cleanup is never urgent.)
    let next = listedAt;
    for (const { version, ms } of written)
      if (ms !== undefined && (upTo === undefined || version > upTo)) next = Math.min(next, ms);
    this.#cleanupDue = { graceMs, atMs: next + graceMs };
    if (checkpoint && state.version - newest >= Math.min(this.#checkpointEvery, CLEANUP_EVERY))
      await this.#checkpoint(state);
    return removed;
  }
}
