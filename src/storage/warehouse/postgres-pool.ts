// One pg Pool per connection string in this process (every catalog on the same server shares it), and
// the queries of the catalog through it: retried while the server is away, failures as AvaErrors.
import { AvaError, describeValue } from "../../errors.js";
import { optionalModule } from "./optional-module.js";
import { pgError, isTransientPg, redact } from "./postgres-errors.js";
import { pools } from "./pool-registry.js";
import { type RetryOptions, withRetry } from "./retry.js";

type PgModule = typeof import("pg");
export type Pool = import("pg").Pool;
export type PoolClient = import("pg").PoolClient;

export function checkConnectionString(connectionString: unknown): string {
  if (typeof connectionString === "string" && /^postgres(ql)?:\/\//.test(connectionString)) {
    try {
      new URL(connectionString);
      return connectionString;
    } catch {}
  }
  throw new AvaError(
    "INVALID_ARGUMENT",
    `postgresCatalog({ connectionString }) needs a URL like "postgresql://user:password@host:5432/db", got ${
      typeof connectionString === "string"
        ? JSON.stringify(redact(connectionString))
        : describeValue(connectionString)
    }`,
  );
}

export function loadPg(): Promise<PgModule> {
  return optionalModule<{ default: PgModule } & PgModule>("pg", "postgresCatalog").then(
    (m) => m.default ?? m,
  );
}

/** The process's pool for `connectionString`, made on first use. */
export function poolFor(connectionString: string): Promise<Pool> {
  let pool = pools.get(connectionString) as Promise<Pool> | undefined;
  if (!pool) {
    pool = loadPg().then((pg) => {
      const p = new pg.Pool({
        connectionString,
        max: 4, // a catalog runs one statement at a time per commit; a few slots serve concurrent tables
        idleTimeoutMillis: 5_000,
        connectionTimeoutMillis: 10_000,
        allowExitOnIdle: true, // an idle pool must not keep a CLI or a test process alive
        application_name: "avalanche-web",
      });
      // An idle client whose server went away (restart, failover): the pool drops it; the next query
      // gets a fresh connection. Without a listener, that 'error' event would crash the process.
      p.on("error", () => {});
      return p;
    });
    pool.catch(() => pools.delete(connectionString));
    pools.set(connectionString, pool);
  }
  return pool;
}

export interface Queries {
  server: string;
  retry: RetryOptions;
}

/** One statement (its own transaction), retried while it fails transiently: for reads and idempotent writes. */
export async function query<R extends Record<string, unknown>>(
  q: Queries & { pool: () => Promise<Pool> },
  what: string,
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  try {
    return await withRetry(
      async () => (await (await q.pool()).query<R>(text, values)).rows,
      isTransientPg,
      q.retry,
    );
  } catch (err) {
    throw pgError(err, what, q.server);
  }
}

/** `body` inside BEGIN … COMMIT on one connection (rolled back if it throws); not retried. */
export async function transaction<T>(
  q: Queries & { pool: () => Promise<Pool> },
  what: string,
  body: (client: PoolClient) => Promise<T>,
): Promise<T> {
  let client: PoolClient | undefined;
  let broken = false;
  try {
    client = await withRetry(async () => (await q.pool()).connect(), isTransientPg, q.retry);
    await client.query("BEGIN");
    try {
      const result = await body(client);
      await client.query("COMMIT");
      return result;
    } catch (err) {
      await client.query("ROLLBACK").catch(() => {});
      throw err;
    }
  } catch (err) {
    broken = isTransientPg(err);
    throw pgError(err, what, q.server);
  } finally {
    // A connection that broke goes away instead of back into the pool, where it would fail the next query.
    client?.release(broken);
  }
}

export { isTransientPg };
