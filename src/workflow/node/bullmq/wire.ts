// Values on a BullMQ job travel as JSON text in Redis, so they are encoded to JSON-safe data: Arrow tables as
// base64 Arrow IPC, AppendResults with their table, bigints, Dates and bytes tagged. A payload over
// `maxValueBytes` does not go through Redis at all: it is written to the run's storage and the job carries
// its path (a reference), which the other side reads once and deletes. Without storage it is refused.
import * as A from "apache-arrow";
import { AvaError } from "../../../errors.js";
import type { Storage } from "../../../storage/types.js";
import { AppendResult } from "../../../table/append-result.js";
import { ulid } from "../../../util/ids.js";
import { isSkip, Skip } from "../../context.js";
import type { ModelLookup } from "../../crossing.js";

/** A payload as it sits in a job: the JSON text itself, or where in the run's storage it was put. */
export type Envelope = { json: string } | { ref: string; bytes: number };

type Tagged =
  | { __ava: "arrow"; ipc: string }
  | { __ava: "append"; name: string; snapshot: unknown; data: unknown }
  | { __ava: "skip"; reason: string }
  | { __ava: "bigint"; value: string }
  | { __ava: "date"; ms: number }
  | { __ava: "bytes"; base64: string }
  | { __ava: "undefined" }
  | { __ava: "number"; value: string };

/** Where payloads passed by reference live in a storage: outside `data/`, so vacuum never sees them. */
export const VALUES_PREFIX = "values/";

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype;

const base64 = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
const unbase64 = (text: string) => new Uint8Array(Buffer.from(text, "base64"));

/** `value` as JSON-safe data; anything else JSON would silently change (NaN, a Map, a class) is refused. */
export function toJsonSafe(value: unknown, where: string): unknown {
  const walk = (v: unknown, path: string): unknown => {
    if (v === null || typeof v === "string" || typeof v === "boolean") return v;
    if (typeof v === "number")
      return Number.isFinite(v) ? v : ({ __ava: "number", value: String(v) } satisfies Tagged);
    if (v === undefined) return { __ava: "undefined" } satisfies Tagged;
    if (typeof v === "bigint") return { __ava: "bigint", value: v.toString() } satisfies Tagged;
    if (v instanceof Date) return { __ava: "date", ms: v.getTime() } satisfies Tagged;
    if (v instanceof Uint8Array) return { __ava: "bytes", base64: base64(v) } satisfies Tagged;
    if (v instanceof A.Table)
      return { __ava: "arrow", ipc: base64(A.tableToIPC(v, "stream")) } satisfies Tagged;
    if (v instanceof AppendResult)
      return {
        __ava: "append",
        name: v.table,
        snapshot: walk(v.snapshot, `${path}.snapshot`),
        data: walk(v.data, `${path}.data`),
      } satisfies Tagged;
    if (isSkip(v)) return { __ava: "skip", reason: v.reason } satisfies Tagged;
    if (Array.isArray(v)) return v.map((x, i) => walk(x, `${path}[${i}]`));
    if (isPlainObject(v))
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, `${path}.${k}`)]));
    throw new AvaError(
      "INVALID_ARGUMENT",
      `${where}: ${path} is a ${(v as object)?.constructor?.name ?? typeof v}, which cannot travel through Redis ` +
        "(use plain data, Arrow tables, AppendResults, bigints, Dates or Uint8Arrays)",
    );
  };
  return walk(value, "value");
}

export function fromJsonSafe(value: unknown, models: ModelLookup = () => undefined): unknown {
  const back = (v: unknown) => fromJsonSafe(v, models);
  if (Array.isArray(value)) return value.map(back);
  if (!isPlainObject(value)) return value;
  const t = value as Tagged;
  switch (t.__ava) {
    case "arrow":
      return A.tableFromIPC(unbase64(t.ipc));
    case "append":
      return new AppendResult(
        t.name,
        back(t.snapshot) as AppendResult<unknown>["snapshot"],
        back(t.data) as A.Table,
        models(t.name),
      );
    case "skip":
      return new Skip(t.reason);
    case "bigint":
      return BigInt(t.value);
    case "date":
      return new Date(t.ms);
    case "bytes":
      return unbase64(t.base64);
    case "undefined":
      return undefined;
    case "number":
      return Number(t.value);
  }
  return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, back(x)]));
}

export interface Packing {
  /** The run's storage, where payloads over the limit go; undefined: such payloads are refused. */
  storage: Storage | undefined;
  maxValueBytes: number;
  /** Names the payload in errors and in its file name (`run 01J…, node load, result`). */
  what: string;
  runId: string;
}

/** Encodes `value` for a job: inline JSON when small enough, else a file in the run's storage. */
export async function pack(
  value: unknown,
  { storage, maxValueBytes, what, runId }: Packing,
): Promise<Envelope> {
  const json = JSON.stringify(toJsonSafe(value, what));
  const bytes = Buffer.byteLength(json);
  if (bytes <= maxValueBytes) return { json };
  if (!storage)
    throw new AvaError(
      "TOO_LARGE",
      `${what}: ${bytes} bytes as JSON, over maxValueBytes (${maxValueBytes}); larger values travel by reference ` +
        "through the run's storage: give the run a storage (nodeStorage or any storage the workers reopen), or raise maxValueBytes",
    );
  const ref = `${VALUES_PREFIX}${encodeURIComponent(runId)}/${ulid()}.json`;
  await storage.files.write(ref, new TextEncoder().encode(json));
  return { ref, bytes };
}

/** Decodes a job's payload; a reference is read from the run's storage and, when `consume`, deleted. */
export async function unpack(
  envelope: Envelope,
  storage: Storage | undefined,
  models: ModelLookup,
  { consume }: { consume: boolean },
): Promise<unknown> {
  if ("json" in envelope) return fromJsonSafe(JSON.parse(envelope.json), models);
  if (!storage)
    throw new AvaError(
      "UNAVAILABLE",
      `a value passed by reference (${envelope.ref}) needs the run's storage`,
    );
  const bytes = await storage.files.read(envelope.ref);
  if (consume) await storage.files.delete(envelope.ref);
  return fromJsonSafe(JSON.parse(new TextDecoder().decode(bytes)), models);
}

/** Deletes a payload's file, if it went by reference (the sender's cleanup once the job is over). */
export async function discard(envelope: Envelope | undefined, storage: Storage | undefined): Promise<void> {
  if (envelope && "ref" in envelope) await storage?.files.delete(envelope.ref).catch(() => {});
}
