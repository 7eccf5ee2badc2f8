// The flush's fast way from inlined appends to a Parquet file: the payloads' IPC streams are spliced into
// one (inline-splice.ts) and handed to parquet-wasm as they are, and the file's stats are merged from the
// appends' own stats, so no row is decoded into Arrow JS, conformed, re-encoded as IPC or scanned for
// bounds. Only for what needs none of that: inlined appends of the table's current schema version whose
// payloads carry a CRC (checked here) — anything else goes the general way, through a Scan.
import * as A from "apache-arrow";
import { withParquetFieldIdsIfDescribable } from "../iceberg/parquet-field-ids.js";
import { encodeParquetFromIpc, type ParquetEncoder } from "../parquet/parquet.js";
import { sameType } from "../schema/cast.js";
import type { DataFile } from "../storage/catalog/model.js";
import { tableKey } from "../storage/catalog/model.js";
import type { TableState } from "../storage/catalog/state.js";
import { inlineBytes } from "./inline-data.js";
import { spliceStreams } from "./inline-splice.js";
import { mergedStats } from "./stats.js";

function sameLayout(payload: A.Schema, wanted: A.Schema): boolean {
  return (
    payload.fields.length === wanted.fields.length &&
    payload.fields.every(
      (f, i) => f.name === wanted.fields[i]!.name && sameType(f.type, wanted.fields[i]!.type),
    )
  );
}

/**
 * `run` as the bytes of one Parquet file and its DataFile (without a path), written under `stored` (the
 * table's stored schema, with Parquet field ids as every merged file has); undefined when the run is not
 * for the fast way.
 */
export async function flushInlinedRun(
  entry: TableState,
  stored: A.Schema,
  run: readonly DataFile[],
  encoder?: ParquetEncoder,
): Promise<{ bytes: Uint8Array; file: Omit<DataFile, "path"> } | undefined> {
  const schemaId = entry.schemas?.at(-1)?.id ?? 0; // a file's absent schemaId is 0, the first
  const plain = (f: DataFile) =>
    f.inline !== undefined && f.inlineCrc !== undefined && !f.flushedTo && (f.schemaId ?? 0) === schemaId;
  if (run.length === 0 || !run.every(plain)) return undefined;
  const identifier = tableKey(entry.namespace, entry.name);
  const schema = withParquetFieldIdsIfDescribable(new A.Table(stored), entry, identifier).schema;
  const ipc = spliceStreams(
    run.map((f) => ({ bytes: inlineBytes(f), rows: f.rowCount })),
    schema,
    sameLayout,
  );
  if (!ipc) return undefined;
  const bytes = await encodeParquetFromIpc(ipc, schema, {}, encoder);
  const file: Omit<DataFile, "path"> = {
    rowCount: run.reduce((n, f) => n + f.rowCount, 0),
    sizeBytes: bytes.length,
    stats: mergedStats(run),
  };
  if (schemaId) file.schemaId = schemaId;
  return { bytes, file };
}
