// @duckdb/node-api results -> an Arrow table. The node API has no Arrow export, so each column is built
// from its values straight into Arrow buffers (never through Arrow's builders, whose timestamp builders
// take epoch milliseconds and would rescale exact micro- and nanosecond values).
// Types follow DuckDB's own Arrow export where it is lossless; DECIMAL and HUGEINT become Float64, as the
// browser engine asks duckdb-wasm to do (castDecimalToDouble), so one query gives one schema everywhere.
import type { DuckDBMaterializedResult, DuckDBType, DuckDBValue } from "@duckdb/node-api";
import * as A from "apache-arrow";

const encoder = new TextEncoder();

type Values = readonly (DuckDBValue | undefined)[];

function validity(values: Values): { bitmap: Uint8Array; nulls: number } {
  const bitmap = new Uint8Array(Math.ceil(values.length / 8));
  let nulls = 0;
  values.forEach((v, i) => {
    if (v === null || v === undefined) nulls++;
    else bitmap[i >> 3]! |= 1 << (i & 7);
  });
  return { bitmap, nulls };
}

function fixed(
  type: A.DataType,
  values: Values,
  array: { new (n: number): ArrayLike<unknown> & { [i: number]: unknown } },
  read: (v: DuckDBValue) => unknown,
): A.Data {
  const { bitmap, nulls } = validity(values);
  const data = new array(values.length);
  values.forEach((v, i) => {
    if (v !== null && v !== undefined) data[i] = read(v);
  });
  return A.makeData({ type, length: values.length, nullCount: nulls, nullBitmap: bitmap, data } as never);
}

function bools(values: Values): A.Data {
  const { bitmap, nulls } = validity(values);
  const data = new Uint8Array(bitmap.length);
  values.forEach((v, i) => {
    if (v === true) data[i >> 3]! |= 1 << (i & 7);
  });
  return A.makeData({
    type: new A.Bool(),
    length: values.length,
    nullCount: nulls,
    nullBitmap: bitmap,
    data,
  });
}

function bytesColumn(
  type: A.Utf8 | A.Binary,
  values: Values,
  toBytes: (v: DuckDBValue) => Uint8Array,
): A.Data {
  const { bitmap, nulls } = validity(values);
  const parts = values.map((v) => (v === null || v === undefined ? new Uint8Array(0) : toBytes(v)));
  const valueOffsets = new Int32Array(values.length + 1);
  parts.forEach((p, i) => {
    valueOffsets[i + 1] = valueOffsets[i]! + p.length;
  });
  const data = new Uint8Array(valueOffsets[values.length]!);
  parts.forEach((p, i) => {
    data.set(p, valueOffsets[i]!);
  });
  const props = { type, length: values.length, nullCount: nulls, nullBitmap: bitmap, valueOffsets, data };
  return A.makeData(props as never) as A.Data;
}

const num = (v: DuckDBValue) => v as number;
const big = (v: DuckDBValue) => v as bigint;
const field =
  <K extends string>(key: K) =>
  (v: DuckDBValue) =>
    (v as unknown as Record<K, unknown>)[key];

/** One column of DuckDB values as Arrow data of the matching type. */
export function columnData(type: DuckDBType, values: Values): A.Data {
  switch (type.typeId) {
    case 1: // BOOLEAN
      return bools(values);
    case 2: // TINYINT
      return fixed(new A.Int8(), values, Int8Array, num);
    case 3: // SMALLINT
      return fixed(new A.Int16(), values, Int16Array, num);
    case 4: // INTEGER
      return fixed(new A.Int32(), values, Int32Array, num);
    case 5: // BIGINT
      return fixed(new A.Int64(), values, BigInt64Array, big);
    case 6: // UTINYINT
      return fixed(new A.Uint8(), values, Uint8Array, num);
    case 7: // USMALLINT
      return fixed(new A.Uint16(), values, Uint16Array, num);
    case 8: // UINTEGER
      return fixed(new A.Uint32(), values, Uint32Array, num);
    case 9: // UBIGINT
      return fixed(new A.Uint64(), values, BigUint64Array, big);
    case 10: // FLOAT
      return fixed(new A.Float32(), values, Float32Array, num);
    case 11: // DOUBLE
      return fixed(new A.Float64(), values, Float64Array, num);
    case 16: // HUGEINT
    case 32: // UHUGEINT
      return fixed(new A.Float64(), values, Float64Array, (v) => Number(v as bigint));
    case 19: // DECIMAL
      return fixed(new A.Float64(), values, Float64Array, (v) => (v as { toDouble(): number }).toDouble());
    case 13: // DATE
      return fixed(new A.DateDay(), values, Int32Array, field("days"));
    case 12: // TIMESTAMP
      return fixed(new A.TimestampMicrosecond(), values, BigInt64Array, field("micros"));
    case 31: // TIMESTAMP WITH TIME ZONE (stored as UTC instants)
      return fixed(new A.TimestampMicrosecond("UTC"), values, BigInt64Array, field("micros"));
    case 20: // TIMESTAMP_S
      return fixed(new A.TimestampSecond(), values, BigInt64Array, field("seconds"));
    case 21: // TIMESTAMP_MS
      return fixed(new A.TimestampMillisecond(), values, BigInt64Array, field("millis"));
    case 22: // TIMESTAMP_NS
      return fixed(new A.TimestampNanosecond(), values, BigInt64Array, field("nanos"));
    case 18: // BLOB
      return bytesColumn(new A.Binary(), values, (v) => (v as unknown as { bytes: Uint8Array }).bytes);
    case 24: // LIST
    case 33: // ARRAY
      return listData(type as DuckDBType & { valueType: DuckDBType }, values);
    case 25: // STRUCT
      return structData(type as DuckDBType & { entryNames: string[]; entryTypes: DuckDBType[] }, values);
    default: // VARCHAR, ENUM, UUID, and the rest (INTERVAL, TIME, MAP, …) as their DuckDB text
      return bytesColumn(new A.Utf8(), values, (v) => encoder.encode(String(v)));
  }
}

function listData(type: { valueType: DuckDBType }, values: Values): A.Data {
  const { bitmap, nulls } = validity(values);
  const items: (DuckDBValue | undefined)[] = [];
  const valueOffsets = new Int32Array(values.length + 1);
  values.forEach((v, i) => {
    if (v !== null && v !== undefined) items.push(...(v as unknown as { items: DuckDBValue[] }).items);
    valueOffsets[i + 1] = items.length;
  });
  const child = columnData(type.valueType, items);
  const listType = new A.List(new A.Field("item", child.type, true));
  return A.makeData({
    type: listType,
    length: values.length,
    nullCount: nulls,
    nullBitmap: bitmap,
    valueOffsets,
    child,
  });
}

function structData(type: { entryNames: string[]; entryTypes: DuckDBType[] }, values: Values): A.Data {
  const { bitmap, nulls } = validity(values);
  const children = type.entryNames.map((name, k) =>
    columnData(
      type.entryTypes[k]!,
      values.map((v) =>
        v === null || v === undefined ? null : (v as { entries: Record<string, DuckDBValue> }).entries[name],
      ),
    ),
  );
  const structType = new A.Struct(
    type.entryNames.map((name, k) => new A.Field(name, children[k]!.type, true)),
  );
  return A.makeData({
    type: structType,
    length: values.length,
    nullCount: nulls,
    nullBitmap: bitmap,
    children,
  });
}

/** A whole materialized result as one Arrow table (column names deduplicated as DuckDB does). */
export async function resultToArrow(result: DuckDBMaterializedResult): Promise<A.Table> {
  const names = result.deduplicatedColumnNames();
  const types = result.columnTypes();
  const columns = await result.getColumns();
  const data = names.map((_, k) => columnData(types[k]!, columns[k] ?? []));
  const fields = names.map((name, k) => new A.Field(name, data[k]!.type, true));
  const schema = new A.Schema(fields);
  const length = result.rowCount;
  const struct = A.makeData({ type: new A.Struct(fields), length, nullCount: 0, children: data });
  return new A.Table(schema, [new A.RecordBatch(schema, struct)]);
}
