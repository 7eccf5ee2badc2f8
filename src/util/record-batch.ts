// A RecordBatch of exactly a given schema, for columns built to it: apache-arrow's constructor derives a new
// schema for every batch (ensureSameLengthData → schema.assign: each field cloned with freshly merged
// metadata maps, each looked up by name among the others), and a Table of it then compares that copy with
// its own schema field by field. For a 10-row append (15 columns with provenance, built twice: coerced,
// then with provenance) that was most of building its rows. What the constructor checks — every column
// as long as the batch, else it widens the field to nullable and pads the column — is checked here: a
// batch it would change is built by the constructor.
import * as A from "apache-arrow";

/**
 * What the constructor leaves on a batch of a [Schema, Data] pair: the object made here holds the same
 * fields, found on a probe batch when this module loads, so that an apache-arrow that keeps other state
 * makes every batch through its own constructor again.
 */
const PLAIN_KEYS = ["_metadata", "data", "schema"];
const probeSchema = new A.Schema([new A.Field("x", new A.Int32(), false)]);
const probe = new A.RecordBatch(
  probeSchema,
  A.makeData({
    type: new A.Struct(probeSchema.fields),
    length: 1,
    nullCount: 0,
    children: [A.makeData({ type: new A.Int32(), length: 1, nullCount: 0, data: new Int32Array(1) })],
  }),
);
const plain = Object.keys(probe).sort().join() === PLAIN_KEYS.join() && probe.metadata instanceof Map;

/** `new A.RecordBatch(schema, data)` whose `schema` is the one given (the same object). */
export function recordBatch(schema: A.Schema, data: A.Data<A.Struct>): A.RecordBatch {
  const fields = schema.fields;
  const children = data.children;
  let fits = plain && children.length === fields.length && data.type.children.length === fields.length;
  for (let i = 0; fits && i < children.length; i++) fits = children[i]!.length === data.length;
  if (!fits) return new A.RecordBatch(schema, data);
  const batch = Object.create(A.RecordBatch.prototype) as A.RecordBatch;
  Object.assign(batch, { schema, data, _metadata: new Map() });
  return batch;
}
