// A live stream's outbox: each batch is an Avro stream file in an avalanche storage, recorded by an
// `outboxAdd` catalog commit before it is sent and removed by an `outboxRemove` commit once the server has
// acknowledged it. The file is written first and the commit is the only visible step, so a crash leaves
// either no batch or a whole one (a file no commit references is an orphan, never sent). Files are written
// once under the batch id and never truncated or rewritten.
import { AvaError, isAvaError } from "../../errors.js";
import type { OutboxBatch, OutboxState } from "../../storage/catalog/model.js";
import { EMPTY_OUTBOX, outboxBytes } from "../../storage/catalog/outbox-state.js";
import type { CatalogOp } from "../../storage/catalog/state.js";
import type { Storage } from "../../storage/types.js";
import type { LiveBatch } from "./transport.js";

/** What a stream does when a new batch would pass its outbox's byte cap. */
export type OutboxPolicy = "block" | "drop-oldest" | "error";

export const OUTBOX_POLICIES: readonly OutboxPolicy[] = ["block", "drop-oldest", "error"];

/** A drop-oldest store may lose the race to the cap a few times under contention; then it says so. */
const STORE_ATTEMPTS = 8;

export interface StoreOptions {
  maxBytes: number;
  policy: OutboxPolicy;
  /** Batches being sent right now: drop-oldest leaves them alone (their points may already be on the server). */
  inFlight?: ReadonlySet<string>;
}

export class Outbox {
  readonly storage: Storage;
  readonly stream: string;

  constructor(storage: Storage, stream: string) {
    this.storage = storage;
    this.stream = stream;
  }

  #path(id: string): string {
    return `outbox/${this.stream}/${id}.avro`;
  }

  /** The stream's outbox as the catalog holds it now (catching up with other tabs and processes). */
  async state(): Promise<OutboxState> {
    return (await this.storage.catalog.current()).outboxes[this.stream] ?? EMPTY_OUTBOX;
  }

  /** The state last seen, without I/O. */
  peek(): OutboxState {
    return this.storage.catalog.peek()?.outboxes[this.stream] ?? EMPTY_OUTBOX;
  }

  /**
   * Makes `batch` durable: its file, then its catalog entry. At the cap, "drop-oldest" removes the oldest
   * batches in the same commit (returned, so the loss is counted); "block" and "error" throw QUOTA_EXCEEDED
   * and leave nothing behind.
   */
  async store(batch: LiveBatch, { maxBytes, policy, inFlight }: StoreOptions): Promise<OutboxBatch[]> {
    const entry: OutboxBatch = {
      id: batch.id,
      path: this.#path(batch.id),
      points: batch.points,
      bytes: batch.bytes.length,
      createdMs: Date.now(),
    };
    if (policy !== "drop-oldest") {
      // Full already: refuse before writing the file (a blocked stream asks again and again).
      const held = outboxBytes(await this.state());
      if (held > 0 && held + entry.bytes > maxBytes)
        throw new AvaError(
          "QUOTA_EXCEEDED",
          `the outbox of live stream ${this.stream} holds ${held} bytes: batch ${entry.id} (${entry.bytes} bytes) would pass its cap of ${maxBytes}`,
        );
    }
    // A batch's bytes are never changed once cut: a memory outbox may keep them without a copy.
    await this.storage.files.write(entry.path, batch.bytes, { handOver: true }).catch(async (err) => {
      // Whatever the failed write left (a writer killed midway) goes, or the retry would find it "exists".
      // No commit names this batch yet: nothing else reads its file.
      await this.storage.files.delete(entry.path).catch(() => {});
      throw err;
    });
    try {
      for (let attempt = 1; ; attempt++) {
        const dropped =
          policy === "drop-oldest" ? this.#oldestToDrop(await this.state(), entry, maxBytes, inFlight) : [];
        const ops: CatalogOp[] = [];
        if (dropped.length > 0)
          ops.push({ op: "outboxRemove", stream: this.stream, ids: dropped.map((b) => b.id), dropped: true });
        ops.push({ op: "outboxAdd", stream: this.stream, batch: entry, maxBytes });
        try {
          await this.storage.catalog.commit(ops);
        } catch (err) {
          // Another writer filled the outbox between the read and the commit: choose again.
          if (policy === "drop-oldest" && isAvaError(err, "QUOTA_EXCEEDED") && attempt < STORE_ATTEMPTS)
            continue;
          throw err;
        }
        await Promise.all(dropped.map((b) => this.storage.files.delete(b.path)));
        return dropped;
      }
    } catch (err) {
      await this.storage.files.delete(entry.path).catch(() => {});
      throw err;
    }
  }

  /** The oldest batches whose removal makes room for `entry` under `maxBytes`. */
  #oldestToDrop(
    state: OutboxState,
    entry: OutboxBatch,
    maxBytes: number,
    inFlight?: ReadonlySet<string>,
  ): OutboxBatch[] {
    let held = outboxBytes(state);
    const dropped: OutboxBatch[] = [];
    for (const b of state.batches) {
      if (held === 0 || held + entry.bytes <= maxBytes) break;
      if (inFlight?.has(b.id)) continue;
      dropped.push(b);
      held -= b.bytes;
    }
    return dropped;
  }

  /** A stored batch's bytes; undefined when it is gone (acknowledged or dropped meanwhile). */
  async read(entry: OutboxBatch): Promise<Uint8Array | undefined> {
    try {
      return await this.storage.files.read(entry.path);
    } catch (err) {
      if (isAvaError(err, "NOT_FOUND")) return undefined;
      throw err;
    }
  }

  /**
   * Deletes files of this stream that no catalog entry names and that are older than `olderThanMs`: the
   * leftovers of a writer killed between writing a batch's file and committing it (never sent: the batch
   * was not durable yet). Younger ones may be another tab's or process's batch about to be committed.
   */
  async sweep(olderThanMs: number): Promise<number> {
    const listed = new Set((await this.state()).batches.map((b) => b.path));
    const now = Date.now();
    const orphans = (await this.storage.files.list(`outbox/${this.stream}/`)).filter(
      (f) => !listed.has(f.path) && now - f.modifiedMs > olderThanMs,
    );
    await Promise.all(orphans.map((f) => this.storage.files.delete(f.path)));
    return orphans.length;
  }

  /** Removes acknowledged (or refused) batches: the catalog entry first, so no entry names a missing file. */
  async remove(entries: readonly OutboxBatch[]): Promise<void> {
    if (entries.length === 0) return;
    await this.storage.catalog.commit([
      { op: "outboxRemove", stream: this.stream, ids: entries.map((b) => b.id) },
    ]);
    await Promise.all(entries.map((b) => this.storage.files.delete(b.path)));
  }
}

/** The byte cap when none is given: half the space the browser says is free, else 256 MiB (Node, memory). */
export async function defaultOutboxBytes(storage: Storage): Promise<number> {
  const fallback = 256 * 2 ** 20;
  if (storage.descriptor.kind === "memory") return 64 * 2 ** 20;
  const estimate = (globalThis.navigator as Navigator | undefined)?.storage?.estimate;
  if (storage.descriptor.kind !== "browser" || typeof estimate !== "function") return fallback;
  try {
    const { quota, usage = 0 } = await navigator.storage.estimate();
    if (quota === undefined) return fallback;
    return Math.max(2 ** 20, Math.floor((quota - usage) / 2));
  } catch {
    return fallback;
  }
}

export function checkPolicy(policy: unknown): OutboxPolicy {
  if (!OUTBOX_POLICIES.includes(policy as OutboxPolicy))
    throw new AvaError(
      "INVALID_ARGUMENT",
      `createLiveStream: outboxPolicy ${JSON.stringify(policy)} is not one of ${OUTBOX_POLICIES.map((p) => `"${p}"`).join(", ")}`,
    );
  return policy as OutboxPolicy;
}
