// `postgresCatalog({ connectionString, schema })`: the Catalog contract on Postgres. All of its semantics —
// optimistic concurrency, rebasing appends, validation, checkpoints, runs, stream progress, cursors,
// idempotency keys, cleanup — are LogCatalog's, shared with every other storage; Postgres only keeps the
// log (see PostgresCatalogLog), so many processes on many machines commit to one catalog safely.
import { describeValue, AvaError } from "../../errors.js";
import { LogCatalog } from "../catalog/log-catalog.js";
import { redact } from "./postgres-errors.js";
import { PostgresCatalogLog } from "./postgres-catalog-log.js";
import { checkConnectionString } from "./postgres-pool.js";
import { checkSchemaName } from "./postgres-schema.js";
import type { RetryOptions } from "./retry.js";

export interface PostgresCatalogOptions {
  /** `postgresql://user:password@host:5432/database` (pg's URL options, e.g. `?sslmode=require`, apply). */
  connectionString: string;
  /** The Postgres schema that holds the catalog's tables, created on first use. Default "avalanche". */
  schema?: string;
  /** A checkpoint of the whole state every this many commits keeps opening fast. Default 100. */
  checkpointEvery?: number;
  /** For subscribe(): how often (ms) a lost LISTEN connection is made again. Default 1000. */
  pollMs?: number;
  /** Retries while the server is unreachable or restarting (default: 4, from 100 ms, doubling). */
  retry?: RetryOptions;
  /** The clock checkpoints are stamped with (default Date.now). */
  now?: () => number;
}

/** Where a Postgres catalog lives, as plain data. */
export interface PostgresLocation {
  connectionString: string;
  schema: string;
}

export interface PostgresCatalog extends LogCatalog {
  readonly location: PostgresLocation;
}

export function postgresCatalog(options: PostgresCatalogOptions): PostgresCatalog {
  const {
    connectionString,
    schema = "avalanche",
    checkpointEvery = 100,
    pollMs = 1000,
    retry = {},
    now,
  } = options ?? ({} as Partial<PostgresCatalogOptions>);
  checkConnectionString(connectionString);
  checkSchemaName(schema);
  if (!Number.isInteger(checkpointEvery) || checkpointEvery < 1)
    throw new AvaError(
      "INVALID_ARGUMENT",
      `postgresCatalog({ checkpointEvery }) must be a positive integer, got ${describeValue(checkpointEvery)}`,
    );
  const log = new PostgresCatalogLog({ connectionString, schema, retry, pollMs }, redact(connectionString));
  const catalog = new LogCatalog(log, { checkpointEvery, ...(now ? { now } : {}) }) as PostgresCatalog;
  Object.defineProperty(catalog, "location", { value: { connectionString, schema }, enumerable: true });
  return catalog;
}
