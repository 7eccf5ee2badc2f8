// Files written under an older schema version, read as the current one: each current column is found in a
// file by its field id (so a renamed column is found under its old name), a column the file predates reads
// as nulls, and a widened column is cast. Statistics are seen the same way, so filters prune old files too.
import * as A from "apache-arrow";
import { AvaError } from "../errors.js";
import { typeFromJson } from "../schema/arrow-json.js";
import { castData, sameType } from "../schema/cast.js";
import { isProvenanceColumn } from "../schema/provenance.js";
import type { ColumnStats, DataFile, SchemaVersion } from "../storage/catalog/model.js";

/** Where a current column is in a file, or null when the file predates it. */
export type ColumnSource = { name: string; type: A.DataType } | null;

/** How one file's columns map onto the current ones (by current column name). */
export type FileProjection = ReadonlyMap<string, ColumnSource>;

export class SchemaLayout {
  readonly #versions: ReadonlyMap<number, SchemaVersion>;
  readonly #current: SchemaVersion | undefined;
  readonly #stored: A.Schema;
  readonly #projections = new Map<number, FileProjection>();

  /** `versions` oldest first (undefined: a table of one schema, whose files all read as they are). */
  constructor(versions: readonly SchemaVersion[] | undefined, stored: A.Schema) {
    this.#versions = new Map((versions ?? []).map((v) => [v.id, v]));
    this.#current = versions?.at(-1);
    this.#stored = stored;
  }

  /** The file's projection, or undefined when it was written under the current schema version. */
  projection(file: DataFile): FileProjection | undefined {
    const id = file.schemaId ?? 0;
    const current = this.#current;
    if (!current || id === current.id) return undefined;
    let projection = this.#projections.get(id);
    if (!projection) {
      const version = this.#versions.get(id);
      if (!version)
        throw new AvaError(
          "DATA_CORRUPT",
          `data file ${file.path} was written under schema version ${id}, which the table does not have`,
        );
      const byId = new Map(version.fields.map((f) => [version.fieldIds[f.name], f]));
      projection = new Map(
        this.#stored.fields.map((field): [string, ColumnSource] => {
          if (isProvenanceColumn(field.name)) return [field.name, { name: field.name, type: field.type }];
          const old = byId.get(current.fieldIds[field.name]);
          return [field.name, old ? { name: old.name, type: typeFromJson(old.type) } : null];
        }),
      );
      this.#projections.set(id, projection);
    }
    return projection;
  }

  /** The file's column statistics under current names (a column the file predates: all null). */
  stats(file: DataFile): Record<string, ColumnStats> {
    const projection = this.projection(file);
    if (!projection) return file.stats;
    const out: Record<string, ColumnStats> = {};
    for (const [name, source] of projection) {
      if (source === null) out[name] = { nullCount: file.rowCount };
      else if (file.stats[source.name] && !A.DataType.isTimestamp(source.type)) {
        // Widened numbers compare as they did (number vs bigint compares exactly); a finer timestamp
        // unit would rescale them, so those bounds are not used.
        out[name] = file.stats[source.name]!;
      }
    }
    return out;
  }
}

function nulls(type: A.DataType, length: number): A.Data {
  const builder = A.makeBuilder({ type, nullValues: [null] });
  for (let i = 0; i < length; i++) builder.append(null);
  return builder.finish().flush();
}

/**
 * Conforms a file's decoded batches to `schema` (the scan's columns). Columns of the current version are
 * only re-labelled with the expected types (no data is copied); older files' columns are cast or filled.
 */
export function conformer(
  decoded: A.Schema,
  schema: A.Schema,
  file: DataFile,
  projection: FileProjection | undefined,
): (batch: A.RecordBatch) => A.RecordBatch {
  const columns = schema.fields.map((field) => {
    const source = projection ? projection.get(field.name)! : { name: field.name, type: field.type };
    if (source === null) return { index: -1, type: field.type, cast: false };
    const index = decoded.fields.findIndex((f) => f.name === source.name);
    const found = decoded.fields[index]?.type;
    if (index >= 0 && sameType(found!, field.type)) return { index, type: field.type, cast: false };
    if (index >= 0 && projection && sameType(found!, source.type))
      return { index, type: field.type, cast: true };
    throw new AvaError(
      "DATA_CORRUPT",
      `data file ${file.path}: column "${source.name}" is missing or of another type`,
    );
  });
  const struct = new A.Struct(schema.fields);
  return (batch) => {
    const children = columns.map(({ index, type, cast }) => {
      if (index < 0) return nulls(type, batch.numRows);
      const data = batch.data.children[index]!;
      if (!cast) return data.clone(type);
      const recast = castData(data, type);
      if (!recast)
        throw new AvaError(
          "DATA_CORRUPT",
          `data file ${file.path}: column of type ${data.type} cannot become ${type}`,
        );
      return recast;
    });
    return new A.RecordBatch(
      schema,
      A.makeData({ type: struct, length: batch.numRows, nullCount: 0, children }),
    );
  };
}
