// The catalog log in IndexedDB (through idb, with a typed schema): entry N is published by `add(entry, N)`
// in one readwrite transaction, which fails with ConstraintError when another tab or Worker added N
// first. That failure is the optimistic concurrency: the loser catches up, rebases and adds N+1.
import { type DBSchema, type IDBPDatabase, openDB } from "idb";
import { toAvaError } from "../../errors.js";
import { type CatalogLog, logGap, type StagedEntry } from "../catalog/log-catalog.js";
import { checkpointWriter } from "./checkpoint-put-worker.js";

export interface CatalogDB extends DBSchema {
  /** version -> the ops of that commit, as JSON */
  log: { key: number; value: string };
  /** version -> the whole state at that version (see serializeState) */
  checkpoints: { key: number; value: Uint8Array };
}

/** Upgrades by schema version; a new store or index is a new step, never an edit of an old one. */
const SCHEMA_VERSION = 1;

export type Durability = "default" | "strict" | "relaxed";

/** The first bytes of a checkpoint kept in memory, and whether they are all of it. */
interface KeptHead {
  head: Uint8Array;
  whole: boolean;
}

/** How much of a checkpoint's head is kept (more than the catalog asks for, CHECKPOINT_HEAD_BYTES). */
const KEPT_HEAD_BYTES = 256;

/** Log entries deleted per readwrite transaction by cleanup (removeBefore). */
const REMOVE_CHUNK = 64;

/** A macrotask's pause: a commit that queued its transaction meanwhile runs before the next chunk. */
const yieldToCommits = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

function keepHead(state: Uint8Array, bytes: number): KeptHead {
  return { head: state.slice(0, bytes), whole: state.length <= bytes };
}

export function openCatalogDB(name: string): Promise<IDBPDatabase<CatalogDB>> {
  let db: IDBPDatabase<CatalogDB> | undefined;
  const opening = openDB<CatalogDB>(`avalanche:${name}`, SCHEMA_VERSION, {
    upgrade(database, oldVersion) {
      if (oldVersion < 1) {
        database.createObjectStore("log");
        database.createObjectStore("checkpoints");
      }
    },
    // Another context wants a newer schema: let it, rather than block it forever.
    blocking: () => db?.close(),
  });
  return opening.then((d) => {
    db = d;
    return d;
  });
}

export class IndexedDbLog implements CatalogLog {
  readonly #db: () => Promise<IDBPDatabase<CatalogDB>>;
  readonly #durability: Durability;
  /** Announces this instance's commits to the other contexts of the origin (see watch). */
  readonly #announce: (version: number) => void;
  readonly #channelName: string;
  /** The first bytes of each checkpoint this instance has read or written, by version (checkpointHeads). */
  readonly #heads = new Map<number, KeptHead>();

  constructor(db: () => Promise<IDBPDatabase<CatalogDB>>, durability: Durability, name: string) {
    this.#db = db;
    this.#durability = durability;
    this.#channelName = `avalanche:${name}`;
    let channel: BroadcastChannel | undefined;
    this.#announce = (version) => {
      if (typeof BroadcastChannel === "undefined") return;
      channel ??= new BroadcastChannel(this.#channelName);
      channel.postMessage({ version });
    };
  }

  /** Commits of other tabs, Workers and instances of this storage arrive on its BroadcastChannel. */
  watch(onChange: () => void): () => void {
    if (typeof BroadcastChannel === "undefined") return () => {};
    const channel = new BroadcastChannel(this.#channelName);
    channel.onmessage = () => onChange();
    return () => channel.close();
  }

  async readFrom(version: number): Promise<string[]> {
    let keys: number[];
    let values: string[];
    try {
      const tx = (await this.#db()).transaction("log");
      const range = IDBKeyRange.lowerBound(version);
      [keys, values] = await Promise.all([tx.store.getAllKeys(range), tx.store.getAll(range)]);
    } catch (err) {
      throw toAvaError(err, `reading catalog entries from ${version}`);
    }
    // One transaction sees one consistent log: a key out of sequence is a lost entry, not a race.
    keys.forEach((key, i) => {
      if (key !== version + i) throw logGap(version + i, key);
    });
    return values;
  }

  entryName(version: number): string {
    return `IndexedDB log entry ${version}`;
  }

  async stage(entry: string): Promise<StagedEntry> {
    // Nothing to write ahead: the transaction that publishes the entry is atomic on its own.
    return {
      publish: async (version) => {
        const db = await this.#db();
        const tx = db.transaction("log", "readwrite", { durability: this.#durability });
        const done = tx.done.catch((err: unknown) => err);
        const added = tx.store.add(entry, version);
        // The add is the transaction's only request: committing it now, instead of once the add's success
        // has come back to this thread and the transaction found itself idle, saves a round trip to the
        // browser's database process on every commit. A refused add (another context took the version)
        // still aborts the transaction.
        tx.commit();
        try {
          await added;
          const failed = await done;
          if (failed) throw failed;
          this.#announce(version);
          return true;
        } catch (err) {
          await done;
          if ((err as { name?: string })?.name === "ConstraintError") return false;
          throw toAvaError(err, `writing catalog entry ${version}`);
        }
      },
      discard: async () => {},
    };
  }

  async latestCheckpoint(): Promise<{ version: number; state: Uint8Array } | undefined> {
    const cursor = await (await this.#db()).transaction("checkpoints").store.openCursor(null, "prev");
    return cursor ? { version: cursor.key, state: cursor.value } : undefined;
  }

  async writeCheckpoint(version: number, state: Uint8Array): Promise<void> {
    try {
      const db = await this.#db(); // opened (and upgraded) here first: the helper Worker only opens it
      const writer = checkpointWriter();
      const off =
        writer.available &&
        (await writer.put(db.name, "checkpoints", version, state).then(
          () => true,
          () => false, // it could not: this thread puts it (the same bytes under the same key)
        ));
      if (!off) await db.put("checkpoints", state, version);
    } catch (err) {
      throw toAvaError(err, `writing catalog checkpoint ${version}`);
    }
    // The pruning that follows lists the heads: without this it read the checkpoint just written back
    // whole (13–50 ms in a Worker for a 0.5–2 MB state, once per checkpoint, in the appenders' thread).
    this.#heads.set(version, keepHead(state, KEPT_HEAD_BYTES));
  }

  async checkpointHeads(bytes: number): Promise<{ version: number; head: Uint8Array }[]> {
    // IndexedDB has no partial reads: a head is read with its whole checkpoint, once, and then kept (a
    // version's checkpoint is written once — or rewritten by another context with the same state). Each
    // commit that checkpoints and each cleanup list the heads; reading every checkpoint whole each time
    // cost a background flush ~100 ms in a Worker.
    const store = (await this.#db()).transaction("checkpoints").store;
    const versions = await store.getAllKeys();
    const out: { version: number; head: Uint8Array }[] = [];
    for (const version of versions) {
      let kept = this.#heads.get(version);
      if (!kept || (!kept.whole && kept.head.length < bytes)) {
        const state = await store.get(version);
        if (!state) continue; // removed meanwhile
        kept = keepHead(state, Math.max(bytes, KEPT_HEAD_BYTES));
        this.#heads.set(version, kept);
      }
      out.push({ version, head: kept.head.subarray(0, bytes) });
    }
    const present = new Set(versions);
    for (const version of this.#heads.keys()) if (!present.has(version)) this.#heads.delete(version);
    return out;
  }

  async removeCheckpoints(versions: readonly number[]): Promise<void> {
    try {
      const tx = (await this.#db()).transaction("checkpoints", "readwrite");
      await Promise.all([...versions.map((v) => tx.store.delete(v)), tx.done]);
    } catch (err) {
      throw toAvaError(err, `removing catalog checkpoints ${versions.join(", ")}`);
    }
  }

  /**
   * The checkpoints before `version` in one transaction of their own store (no commit waits for it), then
   * the entries in transactions of REMOVE_CHUNK entries each, oldest first, yielding between them: a
   * commit's transaction needs the log store, and one transaction deleting a whole hour of entries held it
   * for as long. Every step leaves a log that opens to the same state — the checkpoint at `version` stays
   * and covers whatever is gone; a reader behind it sees a gap and reopens from it — so a crash between
   * steps leaves the rest to the next cleanup.
   */
  async removeBefore(version: number): Promise<string[]> {
    const range = IDBKeyRange.upperBound(version, true);
    try {
      const db = await this.#db();
      const tx = db.transaction("checkpoints", "readwrite");
      const [checkpoints] = await Promise.all([tx.store.getAllKeys(range), tx.store.delete(range), tx.done]);
      const entries = await db.getAllKeys("log", range);
      for (let i = 0; i < entries.length; i += REMOVE_CHUNK) {
        if (i > 0) await yieldToCommits();
        const last = entries[Math.min(i + REMOVE_CHUNK, entries.length) - 1]!;
        const chunk = db.transaction("log", "readwrite", { durability: this.#durability });
        await Promise.all([chunk.store.delete(IDBKeyRange.bound(entries[i]!, last)), chunk.done]);
      }
      return [
        ...checkpoints.map((v) => `IndexedDB checkpoint ${v}`),
        ...entries.map((v) => this.entryName(v)),
      ];
    } catch (err) {
      throw toAvaError(err, `removing catalog entries before ${version}`);
    }
  }

  async vacuum(): Promise<string[]> {
    return []; // staged entries live in memory: nothing is ever left behind
  }
}
