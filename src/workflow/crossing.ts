// Values crossing into and out of workers. Structured clone carries plain data; Arrow tables and
// AppendResults go as Arrow IPC buffers that are transferred, not copied; a Skip keeps its reason.
import * as A from "apache-arrow";
import { AppendResult } from "../table/append-result.js";
import { isSkip, Skip } from "./context.js";

type Tagged =
  | { __ava: "arrow"; ipc: Uint8Array }
  | { __ava: "append"; table: string; snapshot: AppendResult<unknown>["snapshot"]; ipc: Uint8Array }
  | { __ava: "skip"; reason: string };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype;
}

/** `value` ready for postMessage, and the buffers to transfer with it. */
export function encodeValue(value: unknown): { value: unknown; transfer: ArrayBuffer[] } {
  const transfer: ArrayBuffer[] = [];
  const ipc = (t: A.Table) => {
    const bytes = A.tableToIPC(t, "stream");
    transfer.push(bytes.buffer as ArrayBuffer);
    return bytes;
  };
  const walk = (v: unknown): unknown => {
    if (v instanceof A.Table) return { __ava: "arrow", ipc: ipc(v) } satisfies Tagged;
    if (v instanceof AppendResult)
      return { __ava: "append", table: v.table, snapshot: v.snapshot, ipc: ipc(v.data) } satisfies Tagged;
    if (isSkip(v)) return { __ava: "skip", reason: v.reason } satisfies Tagged;
    if (Array.isArray(v)) return v.map(walk);
    if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return { value: walk(value), transfer };
}

export function decodeValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decodeValue);
  if (!isPlainObject(value)) return value;
  const tagged = value as Partial<Tagged>;
  if (tagged.__ava === "arrow") return A.tableFromIPC((value as { ipc: Uint8Array }).ipc);
  if (tagged.__ava === "skip") return new Skip((value as { reason: string }).reason);
  if (tagged.__ava === "append") {
    const v = value as Extract<Tagged, { __ava: "append" }>;
    // The zod model stays behind: toModels() needs the table handle; rows and snapshot cross whole.
    return new AppendResult(v.table, v.snapshot, A.tableFromIPC(v.ipc), undefined);
  }
  return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, decodeValue(x)]));
}
