// What `ns.push()` commits: the namespace and missing tables, and for each stored table whose declaration
// changed, its next schema version (refused before anything is written when the change is incompatible).
// One catalog commit for all of it, so a push lands whole or not at all.
import { AvaError, isAvaError } from "../errors.js";
import { schemaToJson } from "../schema/arrow-json.js";
import { planEvolution } from "../schema/evolution.js";
import { schemaVersionsOf } from "../storage/catalog/model.js";
import type { CatalogOp, CatalogState } from "../storage/catalog/state.js";
import type { Storage } from "../storage/types.js";
import { ulid } from "../util/ids.js";
import type { BoundTableDeclaration } from "./declare.js";

export function planPush(
  state: CatalogState,
  namespace: string,
  declarations: readonly BoundTableDeclaration[],
  now: number,
): CatalogOp[] {
  const ops: CatalogOp[] = [];
  if (!state.namespaces[namespace]) ops.push({ op: "createNamespace", namespace, timestampMs: now });
  for (const decl of declarations) {
    const fields = schemaToJson(decl.schema.user);
    const entry = state.tables[decl.identifier];
    if (!entry) {
      ops.push({
        op: "createTable",
        namespace,
        table: decl.name,
        uuid: ulid(),
        schema: fields,
        rowLineage: decl.rowLineage,
        properties: {},
        timestampMs: now,
      });
      continue;
    }
    if (entry.rowLineage !== decl.rowLineage)
      throw new AvaError(
        "SCHEMA_MISMATCH",
        `table ${decl.identifier} is stored with rowLineage: ${entry.rowLineage}; a declaration cannot change it (declare a new table and copy the rows)`,
      );
    const versions = schemaVersionsOf(entry);
    const declared = JSON.stringify(fields);
    const older = versions.slice(0, -1).findLast((v) => JSON.stringify(v.fields) === declared);
    if (older)
      throw new AvaError(
        "SCHEMA_MISMATCH",
        `table ${decl.identifier} is at schema version ${versions.at(-1)!.id}; this code declares version ${older.id}, an older one: update it to the table's current declaration (a push never goes back)`,
      );
    const version = planEvolution(decl.identifier, versions, { fields, ...decl.changes }, now);
    if (version)
      ops.push({
        op: "evolveSchema",
        namespace,
        table: decl.name,
        fromSchemaId: versions.at(-1)!.id,
        version,
      });
  }
  return ops;
}

/** Plans on the latest state and commits; a push that raced another one plans again on what that one did. */
export async function push(
  storage: Storage,
  namespace: string,
  declarations: readonly BoundTableDeclaration[],
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const ops = planPush(await storage.catalog.current(), namespace, declarations, Date.now());
    if (ops.length === 0) return; // an idempotent push does not grow the log
    try {
      await storage.catalog.commit(ops);
      return;
    } catch (err) {
      if (!isAvaError(err) || err.code !== "COMMIT_CONFLICT" || attempt >= 5) throw err;
    }
  }
}
