// A RecordBatch of columns already known to fit its schema, made without apache-arrow's constructor:
// that constructor re-checks every column's length and always hands the batch a copy of the schema
// (Schema.assign: fields cloned, metadata maps merged), and a Table given such a batch then compares the
// two schemas field by field. For a small append that was a fifth of its CPU, paid twice (the user
// columns, then with the provenance columns). Here the batch keeps the schema object it was given, so
// a table of such batches needs no comparison at all (tableOf).
import * as A from "apache-arrow";

/** The struct type of a schema's fields, one per schema object. */
const structs = new WeakMap<A.Schema, A.Struct>();

function structOf(schema: A.Schema): A.Struct {
  let struct = structs.get(schema);
  if (!struct) {
    struct = new A.Struct(schema.fields);
    structs.set(schema, struct);
  }
  return struct;
}

/** The fields apache-arrow's RecordBatch constructor sets (apache-arrow 21: schema, data, _metadata). */
interface BatchFields {
  schema: A.Schema;
  data: A.Data<A.Struct>;
  _metadata: Map<string, string>;
}

/**
 * A batch of `children` (one per field of `schema`, each `length` long) under `schema` itself. A child of
 * another length is a bug of the caller: apache-arrow's constructor would pad it with nulls silently.
 */
export function batchOf(schema: A.Schema, children: readonly A.Data[], length: number): A.RecordBatch {
  if (children.length !== schema.fields.length || children.some((c) => c.length !== length))
    throw new Error(
      `batchOf: ${children.length} columns for ${schema.fields.length} fields, or not ${length} rows each`,
    );
  const data = A.makeData({ type: structOf(schema), length, nullCount: 0, children: [...children] });
  const batch = Object.create(A.RecordBatch.prototype) as BatchFields;
  batch.schema = schema;
  batch.data = data;
  batch._metadata = new Map();
  return batch as unknown as A.RecordBatch;
}

/** The fields apache-arrow's Table constructor sets (apache-arrow 21: schema, batches, _offsets). */
interface TableFields {
  schema: A.Schema;
  batches: A.RecordBatch[];
  _offsets: Uint32Array;
}

/**
 * `new A.Table(schema, batches)` for batches made under `schema` itself (batchOf): apache-arrow's
 * constructor unwraps its arguments through `instanceof` checks that cost more than the rest of a 10-row
 * table. Batches under another schema object go through the constructor, which compares the schemas.
 */
export function tableOf(schema: A.Schema, batches: readonly A.RecordBatch[]): A.Table {
  if (batches.some((b) => b.schema !== schema)) return new A.Table(schema, [...batches]);
  const offsets = new Uint32Array(batches.length + 1);
  for (let i = 0; i < batches.length; i++) offsets[i + 1] = offsets[i]! + batches[i]!.numRows;
  const table = Object.create(A.Table.prototype) as TableFields;
  table.schema = schema;
  table.batches = [...batches];
  table._offsets = offsets;
  return table as unknown as A.Table;
}
