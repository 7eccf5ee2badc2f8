// One sender per outbox stream. Every live stream on the outbox stores its batches; only the holder of this
// lock sends them, so batches leave in order and are not posted twice by two tabs or processes at once.
//
// - Browser storage: a Web Lock (`navigator.locks`), which the browser hands to the next waiting tab the
//   moment the holder's tab closes or crashes.
// - Node and memory storage: a lease in the outbox's catalog (`outboxLease`, judged atomically by the
//   catalog's commit, so it holds across processes on the same folder). A lock file would need the pid and
//   host to judge staleness, and an exclusive-create file cannot be renewed atomically; a lease that runs out
//   needs neither, and a SIGKILLed sender's successor takes over after at most `leaseMs`. The lease is
//   renewed while sending (one commit per `leaseMs / 2`) and released when the outbox is empty, so an idle
//   stream adds nothing to the catalog's log.
import type { OutboxLease } from "../../storage/catalog/model.js";
import { isAvaError } from "../../errors.js";
import type { Outbox } from "./outbox.js";

export interface SenderLock {
  /** Tries to hold the lock now; true when held (a held lock is renewed as needed). */
  tryHold(): Promise<boolean>;
  /** Lets it go (another sender may take it at once). */
  release(): Promise<void>;
}

export function senderLock(outbox: Outbox, owner: string, leaseMs: number): SenderLock {
  const { descriptor } = outbox.storage;
  const locks = (globalThis.navigator as Navigator | undefined)?.locks;
  if (descriptor.kind === "browser" && locks)
    return webLock(locks, `avalanche-web:outbox:${descriptor.name}:${outbox.stream}`);
  return catalogLease(outbox, owner, leaseMs);
}

function webLock(locks: LockManager, name: string): SenderLock {
  let release: (() => void) | undefined;
  let held: Promise<boolean> | undefined;
  return {
    tryHold() {
      if (release) return Promise.resolve(true);
      held ??= new Promise<boolean>((granted) => {
        void locks.request(name, { ifAvailable: true }, (lock) => {
          if (!lock) {
            granted(false);
            return undefined;
          }
          granted(true);
          // Held until release(): the callback's promise is the lock's lifetime.
          return new Promise<void>((r) => {
            release = r;
          });
        });
      }).finally(() => {
        held = undefined;
      });
      return held;
    },
    async release() {
      release?.();
      release = undefined;
    },
  };
}

function catalogLease(outbox: Outbox, owner: string, leaseMs: number): SenderLock {
  let mine: OutboxLease | undefined;
  const set = async (lease: OutboxLease | null, expected: OutboxLease | null): Promise<boolean> => {
    try {
      await outbox.storage.catalog.commit([{ op: "outboxLease", stream: outbox.stream, lease, expected }]);
      return true;
    } catch (err) {
      if (isAvaError(err, "COMMIT_CONFLICT")) return false;
      throw err;
    }
  };
  return {
    async tryHold() {
      const now = Date.now();
      if (mine && mine.untilMs - now > leaseMs / 2) return true;
      const current = (await outbox.state()).lease ?? null;
      const free = current === null || current.owner === owner || current.untilMs < now;
      if (!free) {
        mine = undefined;
        return false;
      }
      const next = { owner, untilMs: now + leaseMs };
      mine = (await set(next, current)) ? next : undefined;
      return mine !== undefined;
    },
    async release() {
      if (!mine) return;
      const expected = mine;
      mine = undefined;
      await set(null, expected);
    },
  };
}
