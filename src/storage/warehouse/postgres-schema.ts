// The catalog's tables in a Postgres schema of its own, created and migrated on first use. Migrations are
// numbered steps, never edited once released; they run in one transaction under an advisory lock, so many
// processes opening a new catalog at once create it exactly once.
import { AvaError, describeValue } from "../../errors.js";
import { query, type Queries, transaction, type Pool } from "./postgres-pool.js";

/** A lowercase SQL identifier (so it needs no case games), short enough for derived names. */
export function checkSchemaName(schema: unknown): string {
  if (typeof schema === "string" && /^[a-z_][a-z0-9_]{0,47}$/.test(schema)) return schema;
  throw new AvaError(
    "INVALID_NAME",
    `postgresCatalog({ schema }) must be a lowercase identifier (a-z, 0-9, _; at most 48), got ${describeValue(schema)}`,
  );
}

/** Step N brings the schema from version N - 1 to N. */
const MIGRATIONS: ((s: string) => string)[] = [
  (s) => `
    CREATE TABLE ${s}.log (
      version bigint PRIMARY KEY CHECK (version > 0),
      entry text NOT NULL,
      -- who published the entry: a writer whose connection broke mid-commit asks this to learn the outcome
      commit_id uuid NOT NULL UNIQUE,
      committed_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE ${s}.checkpoints (
      version bigint PRIMARY KEY,
      state bytea NOT NULL,
      written_at timestamptz NOT NULL DEFAULT now()
    );`,
];

const migrated = new Map<string, Promise<void>>();

/** Brings `schema` to the current version once per process and server. */
export function ensureSchema(
  q: Queries & { pool: () => Promise<Pool> },
  key: string,
  schema: string,
): Promise<void> {
  let done = migrated.get(key);
  if (!done) {
    done = migrate(q, schema);
    done.catch(() => migrated.delete(key)); // a server that was down is asked again next time
    migrated.set(key, done);
  }
  return done;
}

async function migrate(q: Queries & { pool: () => Promise<Pool> }, schema: string): Promise<void> {
  const s = `"${schema}"`;
  // The common case — another process made it long ago — costs one read and takes no lock.
  const version = async (read: (sql: string) => Promise<{ v: number | null }[]>) => {
    const [exists] = await read(`SELECT to_regclass('${s}.schema_migrations') IS NOT NULL AS v`);
    if (!exists?.v) return 0;
    const [row] = await read(`SELECT max(version) AS v FROM ${s}.schema_migrations`);
    return Number(row?.v ?? 0);
  };
  const current = await version((sql) => query(q, `opening catalog schema ${schema}`, sql));
  if (current === MIGRATIONS.length) return;
  if (current > MIGRATIONS.length) throw newer(schema, current);
  await transaction(q, `creating catalog schema ${schema}`, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`avalanche-web:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const now = await version(async (sql) => (await client.query(sql)).rows);
    if (now > MIGRATIONS.length) throw newer(schema, now);
    for (let step = now; step < MIGRATIONS.length; step++) {
      await client.query(MIGRATIONS[step]!(s));
      await client.query(`INSERT INTO ${s}.schema_migrations (version) VALUES ($1)`, [step + 1]);
    }
  });
}

function newer(schema: string, version: number): AvaError {
  return new AvaError(
    "UNAVAILABLE",
    `catalog schema ${schema} is at version ${version}, newer than this avalanche-web knows (${MIGRATIONS.length}): upgrade avalanche-web`,
  );
}
