// Shape checks for what the catalog reads back: a log entry or checkpoint that is valid JSON of the wrong
// shape must be CATALOG_CORRUPT naming the file, never a TypeError deep inside applyOps. Every op kind is
// described once in OP_SHAPES; a new op is one more row there (the compiler insists on it).
import type { CatalogOp } from "./state.js";

/** Returns what is wrong with `v` (a path and an expectation), or undefined when it fits. */
type Check = (v: unknown, path: string) => string | undefined;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const expect = (what: string, ok: (v: unknown) => boolean): Check => {
  return (v, path) => (ok(v) ? undefined : `${path} should be ${what}, not ${JSON.stringify(v) ?? "absent"}`);
};

export const str = expect("a string", (v) => typeof v === "string");
export const num = expect("a number", (v) => typeof v === "number" && Number.isFinite(v));
export const bool = expect("a boolean", (v) => typeof v === "boolean");
export const anyObject = expect("an object", isObject);

export const nullable =
  (check: Check): Check =>
  (v, path) =>
    v === null ? undefined : check(v, path);

/** A field that may be absent (an optional property). */
const OPTIONAL = Symbol("optional");
type Field = Check & { [OPTIONAL]?: true };
export const opt = (check: Check): Field =>
  Object.assign((v: unknown, p: string) => check(v, p), { [OPTIONAL]: true as const });

export const arrayOf =
  (item: Check): Check =>
  (v, path) => {
    if (!Array.isArray(v)) return `${path} should be an array, not ${JSON.stringify(v) ?? "absent"}`;
    for (let i = 0; i < v.length; i++) {
      const bad = item(v[i], `${path}[${i}]`);
      if (bad) return bad;
    }
    return undefined;
  };

export const recordOf =
  (item: Check): Check =>
  (v, path) => {
    if (!isObject(v)) return `${path} should be an object, not ${JSON.stringify(v) ?? "absent"}`;
    for (const [k, x] of Object.entries(v)) {
      const bad = item(x, `${path}.${k}`);
      if (bad) return bad;
    }
    return undefined;
  };

export const shape =
  (fields: Record<string, Field>): Check =>
  (v, path) => {
    if (!isObject(v)) return `${path} should be an object, not ${JSON.stringify(v) ?? "absent"}`;
    for (const [k, check] of Object.entries(fields)) {
      if (v[k] === undefined && check[OPTIONAL]) continue;
      const bad = check(v[k], `${path}.${k}`);
      if (bad) return bad;
    }
    return undefined;
  };

const statValue: Check = (v, path) =>
  typeof v === "number" || typeof v === "string" || typeof v === "boolean" || v === null || isObject(v)
    ? undefined
    : `${path} should be a statistics value`;

const columnStats = shape({ nullCount: num, min: opt(statValue), max: opt(statValue), bytes: opt(num) });

export const dataFile = shape({
  path: str,
  rowCount: num,
  sizeBytes: num,
  stats: recordOf(columnStats),
  inline: opt(str),
  inlineCrc: opt(num),
  flushedTo: opt(shape({ path: str, rowCount: num, sizeBytes: num, offset: num })),
});

export const snapshot = shape({
  id: str,
  parentId: nullable(str),
  sequenceNumber: num,
  timestampMs: num,
  operation: str,
  addedFiles: arrayOf(dataFile),
  removedFiles: arrayOf(str),
  addedRows: num,
  removedRows: num,
  totalRows: num,
});

const snapshotDraft = shape({
  id: str,
  operation: str,
  timestampMs: num,
  addedFiles: arrayOf(dataFile),
  removeAll: opt(bool),
  idempotencyKey: opt(str),
  removedFiles: opt(arrayOf(str)),
});

export const runRecord = shape({
  runId: str,
  workflowName: str,
  status: str,
  startedMs: num,
  metadata: anyObject,
  nodes: recordOf(anyObject),
});

const fieldJson = shape({ name: str, type: anyObject, nullable: bool });

const schemaVersion = shape({
  id: num,
  fields: arrayOf(fieldJson),
  fieldIds: recordOf(num),
  timestampMs: num,
});

const outboxBatch = shape({ id: str, path: str, points: num, bytes: num, createdMs: num });
const outboxLease = shape({ owner: str, untilMs: num });
export const outboxState = shape({
  batches: arrayOf(outboxBatch),
  lease: opt(outboxLease),
  droppedBatches: num,
  droppedPoints: num,
});

/** One row per op kind: the fields besides `op` that applying it relies on. */
const OP_SHAPES: { [K in CatalogOp["op"]]: Record<string, Field> } = {
  createNamespace: { namespace: str, timestampMs: num },
  createTable: {
    namespace: str,
    table: str,
    uuid: str,
    schema: arrayOf(fieldJson),
    rowLineage: bool,
    properties: recordOf(str),
    timestampMs: num,
  },
  evolveSchema: {
    namespace: str,
    table: str,
    fromSchemaId: num,
    version: schemaVersion,
  },
  commitSnapshot: {
    namespace: str,
    table: str,
    snapshot: snapshotDraft,
    expectedCurrentId: opt(nullable(str)),
  },
  streamProgress: {
    namespace: str,
    table: str,
    key: str,
    expectedPosition: num,
    consumedThrough: opt(num),
    retried: opt(arrayOf(str)),
    failed: opt(shape({ snapshotId: str, sequenceNumber: num, maxAttempts: num })),
  },
  streamAdmin: {
    namespace: str,
    table: str,
    key: str,
    expectedPosition: num,
    reset: opt(num),
    release: opt(str),
  },
  setCursor: { namespace: str, table: str, key: str, value: str, expected: nullable(str) },
  recordRun: { run: runRecord, create: opt(bool) },
  claimTick: { workflow: str, tickMs: num, runId: str, claimedBy: str, timestampMs: num },
  dropTable: { namespace: str, table: str },
  dropNamespace: { namespace: str },
  outboxAdd: { stream: str, batch: outboxBatch, maxBytes: opt(num) },
  outboxRemove: { stream: str, ids: arrayOf(str), dropped: opt(bool) },
  outboxLease: { stream: str, lease: nullable(outboxLease), expected: nullable(outboxLease) },
  expireSnapshots: { namespace: str, table: str, throughSequence: num, timestampMs: num },
  forgetFiles: { namespace: str, table: str, paths: arrayOf(str) },
  maintenanceLease: { holder: str, untilMs: num, nowMs: num },
};

const OP_CHECKS = new Map(Object.entries(OP_SHAPES).map(([op, fields]) => [op, shape(fields)]));

const catalogOp: Check = (v, path) => {
  if (!isObject(v)) return `${path} should be an op object, not ${JSON.stringify(v) ?? "absent"}`;
  const check = typeof v.op === "string" ? OP_CHECKS.get(v.op) : undefined;
  if (!check) return `${path}.op ${JSON.stringify(v.op)} is not a catalog op`;
  return check(v, path);
};

export const logEntry = shape({ ops: arrayOf(catalogOp) });

const checkpointTable = shape({
  namespace: str,
  name: str,
  uuid: str,
  schema: arrayOf(fieldJson),
  schemas: opt(arrayOf(schemaVersion)),
  rowLineage: bool,
  length: num,
  current: nullable(snapshot),
  line: num,
  properties: opt(recordOf(str)),
  base: opt(shape({ throughSequence: num, lastTimestampMs: num, files: arrayOf(dataFile) })),
  doomed: opt(arrayOf(shape({ path: str, sinceMs: num }))),
});

export const checkpointHeader = shape({
  version: num,
  namespaces: recordOf(shape({ name: str, createdMs: num })),
  tables: recordOf(checkpointTable),
  runsLine: opt(num),
  streams: opt(recordOf(anyObject)),
  cursors: opt(recordOf(str)),
  schedules: opt(recordOf(shape({ tickMs: num, runId: str, claimedBy: str, claimedMs: num }))),
  outboxes: opt(recordOf(outboxState)),
  lineCrc: opt(arrayOf(num)),
  maintenance: opt(shape({ holder: str, untilMs: num })),
  writtenMs: opt(num),
});

/** `value` as T when `check` finds nothing wrong; otherwise throws what it found (the caller adds the file). */
export function checked<T>(value: unknown, check: Check, path: string): T {
  const bad = check(value, path);
  if (bad) throw new Error(bad);
  return value as T;
}
