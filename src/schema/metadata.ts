// Field metadata keys the library sets on Arrow fields. They travel with the schema into the catalog and
// into the Parquet files' ARROW:schema, so a column's JS meaning is recoverable from the Arrow schema alone.

/** `"json"`: a Utf8 column holding JSON text; objects and models see the parsed value. */
export const AVA_TYPE = "avalanche.type";
/** `"number"`: an Int64 column whose model field is a JS number (zod `int()`), not a bigint. */
export const AVA_JS = "avalanche.js";

export function fieldMeta(entries: Record<string, string>): Map<string, string> {
  return new Map(Object.entries(entries));
}
