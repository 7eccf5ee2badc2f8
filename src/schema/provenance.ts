// The `_ava_*` provenance columns every append adds (unless a table turns row lineage off): when a row was
// written, and which run, rerun, workflow and node wrote it. Outside a run only `_ava_updated_at` is set.
import * as A from "apache-arrow";
import { allNull, repeatedUtf8 } from "../util/arrow-columns.js";
import { ColumnMemory } from "../util/column-memory.js";
import { recordBatch } from "../util/record-batch.js";
import { AVA_TYPE, fieldMeta } from "./metadata.js";

export const PROVENANCE_PREFIX = "_ava_";

/** What a workflow node knows about itself when it appends (set by the workflow layer). */
export interface RunProvenance {
  runId: string;
  rerunOf?: string | null;
  workflowName: string;
  nodeId: string;
  nodeName: string;
  nodeSlug: string;
  /** upstream slug -> the run that produced the rows this node consumed, plus `self`. */
  lineageVector: Record<string, string>;
  metadata: Record<string, unknown>;
}

const json = () => fieldMeta({ [AVA_TYPE]: "json" });

export const PROVENANCE_FIELDS: readonly A.Field[] = [
  new A.Field("_ava_updated_at", new A.TimestampMicrosecond("UTC"), false),
  new A.Field("_ava_run_id", new A.Utf8(), true),
  new A.Field("_ava_rerun_of", new A.Utf8(), true),
  new A.Field("_ava_workflow_name", new A.Utf8(), true),
  new A.Field("_ava_node_id", new A.Utf8(), true),
  new A.Field("_ava_node_name", new A.Utf8(), true),
  new A.Field("_ava_node_slug", new A.Utf8(), true),
  new A.Field("_ava_lineage_vector", new A.Utf8(), true, json()),
  new A.Field("_ava_ctx_metadata", new A.Utf8(), true, json()),
];

export function isProvenanceColumn(name: string): boolean {
  return name.startsWith(PROVENANCE_PREFIX);
}

/** A Utf8 column of `length` copies of one value (or all nulls). */
function constantUtf8(value: string | null | undefined, length: number): A.Data {
  return value === null || value === undefined ? allNull(new A.Utf8(), length) : repeatedUtf8(value, length);
}

/** `length` copies of `value`: one written, then doubling copies (a bigint `fill` converts it per item). */
function repeatedInt64(value: bigint, length: number, memory: ColumnMemory): BigInt64Array {
  const out = new BigInt64Array(memory.take(8 * length), 0, length);
  if (length > 0) out[0] = value;
  for (let filled = 1; filled < length; ) {
    const n = Math.min(filled, length - filled);
    out.copyWithin(filled, 0, n);
    filled += n;
  }
  return out;
}

/**
 * The run's columns for `length` rows, made once per set of values and length: Arrow data is never
 * written after it is made, so appends of the same size in the same run (or outside any) share them.
 * Building them was a tenth of a small append's CPU. Keyed by the values themselves, not by the run
 * object, so a run whose metadata changes gets new columns.
 */
const runColumnsMade = new Map<string, A.Data[]>();

function runColumns(values: readonly (string | null | undefined)[], length: number): A.Data[] {
  const key = values.every((v) => v === undefined)
    ? `${length}` // outside a run
    : `${length}:${JSON.stringify(values.map((v) => v ?? null))}`;
  let columns = runColumnsMade.get(key);
  if (!columns) {
    if (runColumnsMade.size >= 64) runColumnsMade.clear(); // many sizes or runs: keep only recent ones
    columns = values.map((v) => constantUtf8(v, length));
    runColumnsMade.set(key, columns);
  }
  return columns;
}

function provenanceData(
  run: RunProvenance | undefined,
  updatedAt: bigint,
  length: number,
  memory: ColumnMemory,
): A.Data[] {
  const time = A.makeData({
    type: PROVENANCE_FIELDS[0]!.type as A.TimestampMicrosecond,
    length,
    nullCount: 0,
    data: repeatedInt64(updatedAt, length, memory),
  });
  const values = [
    run?.runId,
    run?.rerunOf,
    run?.workflowName,
    run?.nodeId,
    run?.nodeName,
    run?.nodeSlug,
    run && JSON.stringify(run.lineageVector),
    run && JSON.stringify(run.metadata),
  ];
  return [time, ...runColumns(values, length)];
}

/** The schema a table stores: user columns, then the provenance columns when row lineage is on. */
export function storedSchema(user: A.Schema, rowLineage: boolean): A.Schema {
  return rowLineage ? new A.Schema([...user.fields, ...PROVENANCE_FIELDS]) : user;
}

/**
 * Appends the provenance columns to rows that already fit the user schema; their buffers from `memory`
 * (default: new ones).
 */
export function withProvenance(
  rows: A.Table,
  stored: A.Schema,
  run: RunProvenance | undefined,
  updatedAt: bigint,
  memory = new ColumnMemory(),
): A.Table {
  const struct = new A.Struct(stored.fields);
  const batches = rows.batches.map((batch) => {
    const children = [...batch.data.children, ...provenanceData(run, updatedAt, batch.numRows, memory)];
    return recordBatch(stored, A.makeData({ type: struct, length: batch.numRows, nullCount: 0, children }));
  });
  return new A.Table(stored, batches);
}
