// A live stream's outbox in the catalog: batches are added (after their file is written) and removed (after
// the server acknowledged them, or dropped by a cap policy, counted), oldest first. The ops are judged here
// against the state, so a cap or a lease holds atomically across tabs and processes, and replay is exact.
import { AvaError } from "../../errors.js";
import type { OutboxBatch, OutboxLease, OutboxState } from "./model.js";

export type OutboxOp =
  | {
      /** A batch whose file is written joins the end of the stream's queue. */
      op: "outboxAdd";
      stream: string;
      batch: OutboxBatch;
      /** Refused (QUOTA_EXCEEDED) when the stream's batches would pass this many bytes; an empty outbox takes one. */
      maxBytes?: number;
    }
  | {
      /** Batches leave the queue: acknowledged, refused by the server, or `dropped` by the cap policy (counted). */
      op: "outboxRemove";
      stream: string;
      ids: string[];
      dropped?: boolean;
    }
  | {
      /** Takes, renews (`lease`) or releases (`null`) the right to send; COMMIT_CONFLICT unless `expected` holds. */
      op: "outboxLease";
      stream: string;
      lease: OutboxLease | null;
      expected: OutboxLease | null;
    };

export const EMPTY_OUTBOX: OutboxState = { batches: [], droppedBatches: 0, droppedPoints: 0 };

export function outboxBytes(state: OutboxState): number {
  return state.batches.reduce((n, b) => n + b.bytes, 0);
}

const sameLease = (a: OutboxLease | null | undefined, b: OutboxLease | null) =>
  (a ?? null) === null ? b === null : b !== null && a!.owner === b.owner && a!.untilMs === b.untilMs;

/** Applies one outbox op to `outboxes` (a copy the caller owns). */
export function applyOutboxOp(outboxes: Record<string, OutboxState>, op: OutboxOp): void {
  const current = outboxes[op.stream] ?? EMPTY_OUTBOX;
  if (op.op === "outboxAdd") {
    // A commit rebased after it landed elsewhere, or a batch added twice: once is enough.
    if (current.batches.some((b) => b.id === op.batch.id)) return;
    const held = outboxBytes(current);
    if (op.maxBytes !== undefined && held > 0 && held + op.batch.bytes > op.maxBytes)
      throw new AvaError(
        "QUOTA_EXCEEDED",
        `the outbox of live stream ${op.stream} holds ${held} bytes: batch ${op.batch.id} (${op.batch.bytes} bytes) would pass its cap of ${op.maxBytes}`,
      );
    outboxes[op.stream] = { ...current, batches: [...current.batches, op.batch] };
    return;
  }
  if (op.op === "outboxRemove") {
    const ids = new Set(op.ids);
    const gone = current.batches.filter((b) => ids.has(b.id));
    // Ids no longer there were removed by someone else (another sender's acknowledgement): nothing to do.
    if (gone.length === 0) return;
    const next: OutboxState = { ...current, batches: current.batches.filter((b) => !ids.has(b.id)) };
    if (op.dropped) {
      next.droppedBatches += gone.length;
      next.droppedPoints += gone.reduce((n, b) => n + b.points, 0);
    }
    outboxes[op.stream] = next;
    return;
  }
  if (!sameLease(current.lease, op.expected))
    throw new AvaError(
      "COMMIT_CONFLICT",
      `the sender lease of live stream ${op.stream} changed meanwhile (now ${JSON.stringify(current.lease ?? null)})`,
    );
  const next: OutboxState = { ...current };
  if (op.lease) next.lease = op.lease;
  else delete next.lease;
  outboxes[op.stream] = next;
}
