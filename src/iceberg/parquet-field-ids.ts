// Parquet field ids for the data files of tables with Iceberg metadata. Iceberg readers find a file's
// columns by field id and fall back to the table's name mapping only for files that carry none; parquet-wasm
// (arrow-rs) writes an Arrow field's `PARQUET:field_id` metadata as the Parquet schema element's field_id,
// nested fields and list elements included. So the Arrow table about to be encoded gets a schema whose
// fields carry the ids of the table's current Iceberg schema — the same buffers, only the schema is new.
// Appends add them on tables declared with `iceberg`; compaction and the flush of inlined rows, which run
// without the table's declaration, add them on every table whose schema Iceberg can describe (any table may
// get metadata by exportIceberg() later, and readers that do not look for ids ignore them).
import * as A from "apache-arrow";
import { isAvaError } from "../errors.js";
import type { TableState } from "../storage/catalog/state.js";
import { getOrCreate } from "../util/get-or-create.js";
import { type IcebergField, type IcebergSchema, type IcebergType, icebergSchemas } from "./schema.js";

const FIELD_ID = "PARQUET:field_id";

function withId(field: A.Field, id: number, type: A.DataType): A.Field {
  const metadata = new Map(field.metadata);
  metadata.set(FIELD_ID, String(id));
  return new A.Field(field.name, type, field.nullable, metadata);
}

function typeWithIds(type: A.DataType, iceberg: IcebergType): A.DataType {
  if (typeof iceberg === "string") return type;
  if (iceberg.type === "struct" && A.DataType.isStruct(type))
    return new A.Struct(
      type.children.map((f, i) => {
        const child = iceberg.fields[i];
        return child?.name === f.name ? fieldWithIds(f, child) : f;
      }),
    );
  if (iceberg.type === "list" && A.DataType.isList(type)) {
    const item = type.children[0]!;
    return new A.List(withId(item, iceberg["element-id"], typeWithIds(item.type, iceberg.element)));
  }
  return type;
}

function fieldWithIds(field: A.Field, iceberg: IcebergField): A.Field {
  return withId(field, iceberg.id, typeWithIds(field.type, iceberg.type));
}

function currentSchema(entry: TableState, identifier: string): IcebergSchema {
  return icebergSchemas(entry, identifier).schemas.at(-1)!; // made once per schema version
}

/** `table` with every column the current Iceberg schema describes carrying its field id. */
export function withParquetFieldIds(table: A.Table, entry: TableState, identifier: string): A.Table {
  return withIcebergFieldIds(table, currentSchema(entry, identifier));
}

/**
 * The same, or `table` as it is when Iceberg cannot describe the table's schema (an unsigned column, say):
 * for files written whether or not the table has Iceberg metadata.
 */
export function withParquetFieldIdsIfDescribable(
  table: A.Table,
  entry: TableState,
  identifier: string,
): A.Table {
  try {
    return withParquetFieldIds(table, entry, identifier);
  } catch (err) {
    if (isAvaError(err, "UNSUPPORTED_TYPE")) return table;
    throw err;
  }
}

/**
 * An Arrow schema with ids, made once per Arrow schema and Iceberg schema version: appends of a table
 * arrive with the same Arrow schema object commit after commit, and building fields with metadata maps
 * was a tenth of what the metadata cost a small commit.
 */
const withIds = new WeakMap<A.Schema, WeakMap<IcebergSchema, A.Schema>>();

function schemaWithIds(arrow: A.Schema, iceberg: IcebergSchema): A.Schema {
  const byIceberg = getOrCreate(withIds, arrow, () => new WeakMap());
  return getOrCreate(byIceberg, iceberg, () => {
    const byName = new Map(iceberg.fields.map((f) => [f.name, f]));
    const fields = arrow.fields.map((f) => {
      const described = byName.get(f.name);
      return described ? fieldWithIds(f, described) : f;
    });
    return new A.Schema(fields, arrow.metadata);
  });
}

/**
 * `table` with every column `schema` (one Iceberg schema version) names carrying its field id. Only the
 * table's schema changes: its record batches are `table`'s own. Arrow's IPC writers (and so every Parquet
 * path, parquet/parquet.ts) write the table's schema message once and then only the batches' buffers, and
 * a batch's schema differs from the table's only in field metadata, which apache-arrow's schema comparison
 * ignores. Rebuilding each batch under the new schema (apache-arrow's RecordBatch constructor merges
 * schema metadata and re-checks every child's length) cost more than the rest of the ids' work.
 */
export function withIcebergFieldIds(table: A.Table, iceberg: IcebergSchema): A.Table {
  return new A.Table(schemaWithIds(table.schema, iceberg), table.batches);
}
